// When the next step of a task runs: backoff after transient errors, and the poll cadence.
import type { Channel } from '@mediagen/providers';
import { type Backoff, exponentialBackoffMs } from '@mediagen/queue';

/** 0.5 s doubling to a minute, +-20 % so the retries of tasks hit by the same outage spread out. */
export const STEP_BACKOFF: Backoff = { baseMs: 500, maxMs: 60_000, jitter: 0.2 };

/** Delay before retry number `n` (1-based) of a transient failure; Retry-After is a floor. */
export function backoffMs(n: number, retryAfterMs?: number): number {
  return Math.max(retryAfterMs ?? 0, exponentialBackoffMs(n, STEP_BACKOFF));
}

/**
 * Poll often while a render is young and rarely once it has run long: about a tenth of its age,
 * within the channel's bounds. A render of an hour is then asked about once a minute, which keeps
 * thousands of renders in flight cheap, and finishing late costs at most ~10% of its run time
 * (~5% at the median: the end falls anywhere in the last interval). Where the channel limits its
 * status calls (`poll.maxPerSecond`), every render also waits at least its share of that rate,
 * `inFlight` renders / maxPerSecond, so all of the channel's renders together stay under the limit;
 * the share wins over the age-based delay and over maxMs.
 */
export function pollDelayMs(channel: Channel, renderAgeMs: number, inFlight = 1): number {
  const byAge = Math.min(channel.poll.maxMs, Math.max(channel.poll.minMs, Math.round(renderAgeMs / 10)));
  const limit = channel.poll.maxPerSecond;
  return limit ? Math.max(byAge, Math.ceil((Math.max(1, inFlight) * 1000) / limit)) : byAge;
}

/** A task waiting for a free channel slot looks again after this long. */
export const slotWaitMs = () => 1_000 + Math.round(Math.random() * 2_000);
