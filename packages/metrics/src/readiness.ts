// The /readyz answer of the gateway and the worker, one rule for both: 200 `{status: "ready"}` when
// every dependency answered; otherwise 503 naming each dependency `ok` or `unavailable`. Why one is
// unavailable (driver text: hosts, ports, user names) is shown only to a caller with the metrics or
// admin token: the route is public to load balancers and orchestrators.

/** Per dependency: 'ok', or why it is not (a driver's error text). */
export type ReadinessChecks = Record<string, string>;

export interface ReadinessAnswer {
  status: 200 | 503;
  body: Record<string, string>;
}

export function readinessAnswer(checks: ReadinessChecks, detailed: boolean): ReadinessAnswer {
  const names = Object.keys(checks);
  if (names.every((n) => checks[n] === 'ok')) return { status: 200, body: { status: 'ready' } };
  const shown: Record<string, string> = {};
  for (const n of names) shown[n] = checks[n] === 'ok' ? 'ok' : detailed ? checks[n] : 'unavailable';
  return { status: 503, body: { status: 'not_ready', code: 'service_unavailable', error: 'Dependencies unavailable', ...shown } };
}

/** The text of a failed check (an Error's message, or the value itself). */
export const checkText = (r: PromiseSettledResult<unknown>): string => (r.status === 'fulfilled' ? 'ok' : String((r.reason as Error)?.message ?? r.reason));
