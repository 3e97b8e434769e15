// Exponential backoff, the one formula behind every retry schedule of the service: a base delay
// doubling with each retry up to a cap, then spread by jitter so the retries of many jobs hit by
// the same outage do not come back together. Each caller brings its own numbers: a task step after
// a transient upstream error, a webhook delivery (its own, much longer schedule), a delivery that
// found its slots busy, the write of a render's id. The SDK (packages/client) keeps its own copy:
// it ships alone and imports nothing of the server.

export interface Backoff {
  /** The delay before the first retry. */
  baseMs: number;
  /** No delay is longer than this, before jitter. */
  maxMs: number;
  /** Relative spread: 0.2 puts each delay anywhere within +-20 % of the formula's; 0 for none. */
  jitter: number;
}

/** Delay before retry number `n` (1-based): baseMs x 2^(n-1), at most maxMs, then jittered. */
export function exponentialBackoffMs(n: number, b: Backoff, random: () => number = Math.random): number {
  const ms = Math.min(b.maxMs, b.baseMs * 2 ** Math.max(0, n - 1));
  return b.jitter > 0 ? Math.round(ms * (1 - b.jitter + random() * 2 * b.jitter)) : ms;
}
