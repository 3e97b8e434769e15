// Which errors mean "the database did not answer in time, or the connection to it broke": the
// request may well succeed if retried (gateway: 503 service_unavailable; worker: the step runs
// again after a backoff). Errors arrive from pg directly (plain SQL) or wrapped by Prisma's driver
// adapter, so the whole cause chain is read, by code and by message.

/** SQLSTATEs: statement timeout / query cancelled, connection exceptions (08xxx), server shutting down, too many connections. */
const UNAVAILABLE_SQLSTATE = /^(57014|57P01|57P02|57P03|53300|08\d{3}|25P03)$/;
/** pg, Node and Prisma texts for the same conditions (pg has no codes for its client-side timeouts). */
const UNAVAILABLE_TEXT =
  /timeout exceeded when trying to connect|connection timeout|Query read timeout|Connection terminated|connection (is )?closed|terminating connection|statement timeout|idle-in-transaction|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|Can't reach database|Timed out fetching a new connection/i;
const PRISMA_UNAVAILABLE = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);

export function isDatabaseUnavailable(err: unknown): boolean {
  const seen = new Set<unknown>();
  const visit = (e: unknown, depth: number): boolean => {
    if (!e || typeof e !== 'object' || seen.has(e) || depth > 5) return false;
    seen.add(e);
    const o = e as { code?: unknown; originalCode?: unknown; message?: unknown; originalMessage?: unknown; cause?: unknown; meta?: unknown };
    for (const c of [o.code, o.originalCode]) {
      if (typeof c === 'string' && (UNAVAILABLE_SQLSTATE.test(c) || PRISMA_UNAVAILABLE.has(c) || UNAVAILABLE_TEXT.test(c))) return true;
    }
    for (const m of [o.message, o.originalMessage]) if (typeof m === 'string' && UNAVAILABLE_TEXT.test(m)) return true;
    return visit(o.cause, depth + 1) || visit(o.meta, depth + 1) || visit((o.meta as { driverAdapterError?: unknown } | undefined)?.driverAdapterError, depth + 1);
  };
  return visit(err, 0);
}
