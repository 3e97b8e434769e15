// Simulator directives: words in the prompt that only the simulator reads,
// plus a few of our own for the failure modes tests need (documented in docs/workers-and-channels.md).

export interface Directives {
  /** #sim:delay=<ms> render time. */
  delayMs?: number;
  /** #sim:violation the provider flags the content (explicitly only on reporting channels). */
  violation: boolean;
  /** #sim:fail every channel's render fails. */
  fail: boolean;
  /** #sim:fail-first the first channel tried fails, the next succeeds. */
  failFirst: boolean;
  /** #sim:no-file success without a file. */
  noFile: boolean;
  /** #sim:bad-file success, but the "file" is an HTML error page. */
  badFile: boolean;
  /** #sim:hang the render never finishes. */
  hang: boolean;
  /** #sim:flaky=<n> the first n upstream calls for this task answer 503. */
  flaky: number;
  /** #sim:rate-limit=<n> the first n upstream calls for this task answer 429 with Retry-After: 1. */
  rateLimit: number;
  /** #sim:slow-submit=<ms> the render starts at once but the submit answers only after <ms>. */
  slowSubmitMs: number;
  /** #sim:violation-input the refusal comes at submit, in the protocol's input-side signal. */
  violationInput: boolean;
  /** #sim:violation-legacy MiniMax's older form of it: HTTP 200 with base_resp.status_code 1026. */
  violationLegacy: boolean;
  /** #sim:lost the upstream forgets the task's first render (404 on poll); later renders are fine. */
  lost: boolean;
  /** #sim:expired the upstream reports the render expired (ran past its deadline in the queue). */
  expired: boolean;
  /** #sim:unknown-shape status answers of a shape no client describes (MiniMax: `content` as a string). */
  unknownShape: boolean;
  /**
   * #sim:result-mib=<n> a video result of n MiB (the MP4's mdat padded, streamed as it is sent):
   * large-result tests and the benchmark. At most MAX_RESULT_MIB.
   */
  resultMib?: number;
}

/** Largest #sim:result-mib: the padded mdat keeps its 32-bit size field (< 4 GiB). */
export const MAX_RESULT_MIB = 4000;

const int = (v: string | undefined): number | undefined => {
  const n = v === undefined ? NaN : Number(v);
  return Number.isInteger(n) && n >= 0 ? n : undefined;
};

export function parseDirectives(prompt: unknown): Directives {
  const text = typeof prompt === 'string' ? prompt : '';
  const found = new Map<string, string | undefined>();
  for (const m of text.matchAll(/#sim:([a-z-]+)(?:=(\d+))?/g)) found.set(m[1], m[2]);
  return {
    delayMs: int(found.get('delay')),
    violation: found.has('violation'),
    fail: found.has('fail'),
    failFirst: found.has('fail-first'),
    noFile: found.has('no-file'),
    badFile: found.has('bad-file'),
    hang: found.has('hang'),
    flaky: int(found.get('flaky')) ?? 0,
    rateLimit: int(found.get('rate-limit')) ?? 0,
    slowSubmitMs: int(found.get('slow-submit')) ?? 0,
    violationInput: found.has('violation-input'),
    violationLegacy: found.has('violation-legacy'),
    lost: found.has('lost'),
    expired: found.has('expired'),
    unknownShape: found.has('unknown-shape'),
    resultMib: ((n) => (n ? Math.min(n, MAX_RESULT_MIB) : undefined))(int(found.get('result-mib'))),
  };
}
