// Fair delivery: no account and no destination may take the webhook workers for itself. Shared by
// every worker process through Redis:
// - slots: at most `accountConcurrency` attempts of one account and `destinationConcurrency` to one
//   destination run at once. A delivery that finds either full is not attempted; its job comes
//   back a moment later and holds no worker slot meanwhile, so another account's event goes first.
//   The moment grows with each refusal of the same delivery (100 ms doubling to 2 s): a burst to a
//   fast receiver waits little, and a dead receiver's backlog costs a few job runs a second.
// - destination backoff: after `destinationFailures` failed attempts in a row to one destination,
//   the destination backs off as a whole (doubling from `backoffBaseMs` up to `backoffMaxMs`):
//   its deliveries are not sent until then, and a success ends it.
// A destination is the pair (account, URL origin): one account's broken receiver never slows
// another account that happens to use the same host. Each script touches one key (Redis Cluster).
import { createHash } from 'node:crypto';
import { type Backoff, exponentialBackoffMs, type RedisClient } from '@mediagen/queue';

export interface FairnessLimits {
  accountConcurrency: number;
  destinationConcurrency: number;
  destinationFailures: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** A slot lease lapses after this long (a worker that died mid-attempt frees its slots). */
  leaseMs: number;
}

export interface GatedDelivery {
  id: string;
  accountId: string;
  url: string;
}

export type GateEntry = { ok: true; leave: () => Promise<void> } | { ok: false; retryAt: number };

export interface DeliveryGate {
  /** Until when the delivery's destination backs off (0: it does not). */
  backoffUntil(d: GatedDelivery, now: number): Promise<number>;
  /** Takes an account slot and a destination slot, or says when to look again. */
  enter(d: GatedDelivery, now: number): Promise<GateEntry>;
  /** Counts the attempt's outcome against its destination; answers until when it backs off (0: it does not). */
  outcome(d: GatedDelivery, ok: boolean, now: number): Promise<number>;
}

const ACQUIRE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
if redis.call('ZSCORE', KEYS[1], ARGV[1]) or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[4]) then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
  redis.call('PEXPIREAT', KEYS[1], ARGV[3])
  return 1
end
return 0`;

// KEYS: the destination's hash. ARGV: ok (1/0), now, failures before backing off, base, max, ttl.
// The backoff is exponentialBackoffMs's formula without jitter, written in Lua: it is computed in
// the script that counts the failure, so concurrent outcomes of one destination cannot interleave.
const OUTCOME = `
if ARGV[1] == '1' then
  redis.call('DEL', KEYS[1])
  return 0
end
local failures = redis.call('HINCRBY', KEYS[1], 'failures', 1)
local untilMs = 0
local over = failures - tonumber(ARGV[3])
if over >= 0 then
  untilMs = tonumber(ARGV[2]) + math.min(tonumber(ARGV[5]), tonumber(ARGV[4]) * 2 ^ math.min(over, 40))
  redis.call('HSET', KEYS[1], 'until', untilMs)
end
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return untilMs`;

/** Busy slots, refused `n` times in a row: look again after 100 ms doubling to 2 s, jittered so refused jobs do not return in step. */
const BUSY_WAIT: Backoff = { baseMs: 100, maxMs: 2_000, jitter: 0.25 };
const busyWaitMs = (n: number, random: () => number) => exponentialBackoffMs(n, BUSY_WAIT, random);
/** Refusal streaks are kept in this process only (a job may move to another worker: it starts again at 100 ms). */
const MAX_TRACKED = 10_000;

export function destinationOf(d: Pick<GatedDelivery, 'accountId' | 'url'>): string {
  let origin: string;
  try {
    origin = new URL(d.url).origin;
  } catch {
    origin = d.url;
  }
  return createHash('sha256').update(`${d.accountId} ${origin}`).digest('hex').slice(0, 32);
}

export function createDeliveryGate(redis: RedisClient, prefix: string, limits: FairnessLimits, random = Math.random): DeliveryGate {
  const accountKey = (accountId: string) => `${prefix}:webhook-slots:account:${accountId}`;
  const destinationSlotsKey = (dest: string) => `${prefix}:webhook-slots:dest:${dest}`;
  const backoffKey = (dest: string) => `${prefix}:webhook-dest:${dest}`;
  const take = async (key: string, id: string, now: number, max: number) => (await redis.eval(ACQUIRE, 1, key, id, now, now + limits.leaseMs, max)) === 1;
  // Kept long enough to outlive the longest backoff and the streak that leads to it.
  const stateTtlMs = Math.max(limits.backoffMaxMs * 2, 3_600_000);
  const refusals = new Map<string, number>();
  const busy = (id: string, now: number) => {
    if (refusals.size >= MAX_TRACKED) refusals.clear();
    const n = (refusals.get(id) ?? 0) + 1;
    refusals.set(id, n);
    return { ok: false as const, retryAt: now + busyWaitMs(n, random) };
  };

  return {
    async backoffUntil(d, now) {
      const until = Number((await redis.hget(backoffKey(destinationOf(d)), 'until')) ?? 0);
      return until > now ? until : 0;
    },
    async enter(d, now) {
      const dest = destinationOf(d);
      if (!(await take(accountKey(d.accountId), d.id, now, limits.accountConcurrency))) return busy(d.id, now);
      if (!(await take(destinationSlotsKey(dest), d.id, now, limits.destinationConcurrency))) {
        await redis.zrem(accountKey(d.accountId), d.id);
        return busy(d.id, now);
      }
      refusals.delete(d.id);
      return {
        ok: true,
        leave: async () => {
          await Promise.all([redis.zrem(accountKey(d.accountId), d.id), redis.zrem(destinationSlotsKey(dest), d.id)]);
        },
      };
    },
    async outcome(d, ok, now) {
      const r = await redis.eval(OUTCOME, 1, backoffKey(destinationOf(d)), ok ? '1' : '0', now, limits.destinationFailures, limits.backoffBaseMs, limits.backoffMaxMs, stateTtlMs);
      return Number(r);
    },
  };
}
