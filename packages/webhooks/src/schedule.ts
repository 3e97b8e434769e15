// When a failed delivery is tried again: exponential backoff (base, doubling, capped), with a
// little jitter so deliveries hit by the same outage do not all return together, for about a day
// (WEBHOOK_RETRY_WINDOW_MS). Configurable so tests can run the whole schedule in seconds. The
// formula is the service's one (exponentialBackoffMs); only the numbers are the deliveries' own.
import { exponentialBackoffMs } from '@mediagen/queue';

export interface RetrySchedule {
  baseMs: number;
  maxDelayMs: number;
  windowMs: number;
}

/** Delay before attempt `n + 1` after `n` failed attempts of this round (n >= 1), without jitter. */
export const backoffDelayMs = (n: number, s: RetrySchedule): number => exponentialBackoffMs(n, { baseMs: s.baseMs, maxMs: s.maxDelayMs, jitter: 0 });

/**
 * Delay before the next attempt after `n` failed attempts of the round, or null when that attempt
 * would fall outside the retry window (the delivery then gives up: status failed).
 */
export function nextRetryDelayMs(n: number, s: RetrySchedule, random = Math.random): number | null {
  let elapsed = 0;
  for (let i = 1; i <= n; i++) elapsed += backoffDelayMs(i, s);
  if (elapsed > s.windowMs) return null;
  // +-10 %: enough to spread deliveries minutes to hours apart.
  return exponentialBackoffMs(n, { baseMs: s.baseMs, maxMs: s.maxDelayMs, jitter: 0.1 }, random);
}

/** With the defaults (30 s doubling to 4 h, window 24 h): 30 s, 1 m, 2 m, ... 4 h: 13 retries over about 20 h. */
export function retryCount(s: RetrySchedule): number {
  let n = 0;
  while (nextRetryDelayMs(n + 1, s, () => 0.5) !== null) n++;
  return n;
}
