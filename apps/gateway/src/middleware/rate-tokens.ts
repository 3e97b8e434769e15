// The per-account request count of rate-limit.ts, taken from Redis in small batches: a gateway
// reserves a few of the window's requests at once (INCRBY on the shared window counter) and admits
// that many from memory, so most requests cost no Redis round trip.
//
// Why no gateway can admit more than the limit (docs/operations.md, "Poll cache and rate limits
// across gateways"): the shared counter numbers every reserved request of the window; a
// reservation that takes the counter from `total - n` to `total` is granted only the numbers
// that are <= the limit, so each admitted request owns one distinct number in 1..limit, whatever
// the number of gateways. Reserved requests are spent only before the window's own expiry
// (measured from before the command was sent), never in the next window. The cost is on the other
// side: requests another gateway reserved and did not use are not available here, so an account
// spreading its requests over N gateways may be refused up to (batch - 1) x (N - 1) requests
// before its limit. The batch is 1% of the limit (at least 1, at most MAX_BATCH): with limits of
// 100 a minute or less every request is counted in Redis, exactly as before. Once a quarter of a
// batch is left, the rest of a batch is reserved ahead (aheadFor), so requests do not wait for the
// round trip and what a gateway holds unspent stays within the same batch - 1.
import { performance } from 'node:perf_hooks';
import type { RedisClient } from '@mediagen/queue';

const MAX_BATCH = 100;
const MAX_ACCOUNTS = 10_000;

/** Requests reserved at a time for an account with this limit. */
export const batchFor = (limit: number): number => Math.max(1, Math.min(MAX_BATCH, Math.floor(limit / 100)));

/**
 * Reserving ahead: once at most `at` requests are left here, the next `n` are reserved while those
 * are spent. at + n = batch - 1, so what a gateway holds unspent stays within batch - 1, as after a
 * batch it waited for. `at` is a quarter of the batch: the round trip has that many requests' time.
 */
export function aheadFor(limit: number): { at: number; n: number } {
  const batch = batchFor(limit);
  const at = Math.floor(batch / 4);
  return { at, n: batch - 1 - at };
}

// Reserve ARGV[2] requests of the window KEYS[1] (created with ARGV[1] ms of life by its first
// reservation). Answers {the counter after, ms until the window resets}. One key: cluster-safe.
const RESERVE = `
local ttl = redis.call("PTTL", KEYS[1])
local total
if ttl <= 0 then
  redis.call("SET", KEYS[1], ARGV[2], "PX", ARGV[1])
  total = tonumber(ARGV[2])
  ttl = tonumber(ARGV[1])
else
  total = redis.call("INCRBY", KEYS[1], ARGV[2])
end
return { total, ttl }`;

type ReserveRedis = RedisClient & { rateLimitReserve(key: string, windowMs: number, n: number): Promise<[number, number]> };

export interface Verdict {
  admitted: boolean;
  /** Requests of the window still available to the account, as far as this gateway knows. */
  remaining: number;
  /** Milliseconds until the window resets. */
  resetMs: number;
}

interface Bucket {
  limit: number;
  /** performance.now() of the window's reset at the latest. */
  windowEnd: number;
  /** Reserved here and not spent yet. */
  left: number;
  /** The limit minus the shared counter as last seen: reservable by any gateway. */
  unreserved: number;
  /** Requests waiting for the reservation in flight. */
  waiting: number;
  pending: Promise<void> | null;
}

/** The verdict this gateway can give without Redis, or null when it must reserve first. */
function fromMemory(b: Bucket, limit: number): Verdict | null {
  if (b.limit !== limit) return null;
  const now = performance.now();
  if (b.windowEnd <= now) return null;
  if (b.left > 0) {
    b.left--;
    return { admitted: true, remaining: b.unreserved + b.left, resetMs: b.windowEnd - now };
  }
  // Every request of the window is reserved: refused here until it resets.
  if (b.unreserved === 0) return { admitted: false, remaining: 0, resetMs: b.windowEnd - now };
  return null;
}

const RESERVE_COMMAND = 'rateLimitReserve';

/**
 * The connection with the reserving script defined (once per connection; see redis-scripts.ts),
 * sent as it is called, never auto-pipelined. Why: on an auto-pipelining connection (the
 * gateway's producer) each call made in a turn of its own builds an ioredis Pipeline, which copies
 * every script defined on the connection (BullMQ's too) onto itself: a reservation is rarely in a
 * turn with other commands, and that copy and the pipeline's write were about 2% of the gateway's
 * CPU per cached poll (docs/benchmark.md, "The poll path"). Only this command is left out.
 */
export function reserveRedis(redis: RedisClient): ReserveRedis {
  const r = redis as ReserveRedis;
  if (typeof r.rateLimitReserve !== 'function') r.defineCommand(RESERVE_COMMAND, { numberOfKeys: 1, lua: RESERVE });
  // A new list: ioredis shares its default (empty) list between the connections that set none.
  // (The tests' stand-in connections have no options.)
  const options = r.options as typeof r.options | undefined;
  const ignored = options?.autoPipeliningIgnoredCommands ?? [];
  if (options !== undefined && !ignored.includes(RESERVE_COMMAND)) options.autoPipeliningIgnoredCommands = [...ignored, RESERVE_COMMAND];
  return r;
}

export class RateTokens {
  private readonly buckets = new Map<string, Bucket>();
  private readonly redis: ReserveRedis;

  constructor(redis: RedisClient, private readonly windowMs: number) {
    this.redis = reserveRedis(redis);
  }

  /**
   * Admits or refuses one request of `key`'s window; synchronous when this gateway still holds
   * reserved requests (or knows the window is spent). Rejects only when Redis fails.
   */
  take(key: string, limit: number): Verdict | Promise<Verdict> {
    const b = this.buckets.get(key);
    const v = b === undefined ? null : fromMemory(b, limit);
    if (v === null) return this.takeAfterReserving(key, limit);
    if (v.admitted) this.reserveAhead(b!, key, limit);
    return v;
  }

  /**
   * Admits one request of `key`'s window from this gateway's reservation, or answers null without
   * counting anything (nothing reserved here, or a refusal): then call take().
   */
  admitFromMemory(key: string, limit: number): Verdict | null {
    const b = this.buckets.get(key);
    if (b === undefined || b.left <= 0) return null;
    const v = fromMemory(b, limit);
    if (v !== null) this.reserveAhead(b, key, limit);
    return v;
  }

  /** Reserves the next requests while this gateway still holds a few (aheadFor), so none waits. */
  private reserveAhead(b: Bucket, key: string, limit: number): void {
    if (b.pending !== null || b.unreserved === 0) return;
    const ahead = aheadFor(limit);
    if (ahead.n < 1 || b.left > ahead.at) return;
    b.pending = this.reserve(b, key, limit, ahead.n)
      .catch(() => undefined) // the next reservation that a request waits for reports the outage
      .finally(() => (b.pending = null));
  }

  private async takeAfterReserving(key: string, limit: number): Promise<Verdict> {
    for (;;) {
      let b = this.buckets.get(key);
      if (b === undefined) {
        if (this.buckets.size >= MAX_ACCOUNTS) this.buckets.clear(); // unspent reservations are lost: fewer admitted, never more
        this.buckets.set(key, (b = { limit, windowEnd: 0, left: 0, unreserved: limit, waiting: 0, pending: null }));
      }
      const v = fromMemory(b, limit);
      if (v !== null) {
        if (v.admitted) this.reserveAhead(b, key, limit);
        return v;
      }
      if (b.pending === null) {
        // Enough for the requests already waiting, so a burst does not queue behind one batch each.
        const bucket = b;
        b.pending = this.reserve(b, key, limit, Math.max(batchFor(limit), b.waiting + 1)).finally(() => (bucket.pending = null));
      }
      b.waiting++;
      try {
        await b.pending;
      } finally {
        b.waiting--;
      }
    }
  }

  private async reserve(b: Bucket, key: string, limit: number, n: number): Promise<void> {
    const sent = performance.now();
    const [total, ttl] = await this.redis.rateLimitReserve(key, this.windowMs, n);
    const granted = Math.max(0, Math.min(n, limit - (total - n)));
    const windowEnd = sent + Number(ttl);
    // What is left here carries over only within its own window and limit: a window that reset
    // meanwhile ends about a whole window later than the one this gateway knew, and no request
    // reserved in one window is ever spent in the next.
    const sameWindow = b.left > 0 && b.limit === limit && Math.abs(windowEnd - b.windowEnd) < this.windowMs / 2;
    b.left = sameWindow ? b.left + granted : granted;
    b.windowEnd = sameWindow ? Math.min(b.windowEnd, windowEnd) : windowEnd;
    b.limit = limit;
    b.unreserved = Math.max(0, limit - total);
  }
}
