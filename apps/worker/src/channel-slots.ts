// The per-channel cap on renders in flight (Channel.maxInFlight), shared by every worker process:
// one Redis sorted set per channel, member = task id, score = when the lease lapses. A lease that
// is never released (its task vanished) lapses at the task's deadline instead of leaking forever.
import type { RedisClient } from '@mediagen/queue';
import type { Channel } from '@mediagen/providers';
import { channelSlotsKey } from '@mediagen/channel-health';

const ACQUIRE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
if redis.call('ZSCORE', KEYS[1], ARGV[1]) or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[4]) then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
  return 1
end
return 0`;

/**
 * How long a slot lease outlives its task's deadline. A task past its deadline is failed by its own
 * next step or by the timeout sweep, which then releases the slot; until that has happened the
 * render still holds the slot, so the lease must not lapse at the deadline itself.
 */
export const SLOT_LEASE_GRACE_MS = 60_000;

/** When the slot lease of a task with this deadline lapses. */
export const slotLeaseUntil = (deadlineAt: Date): number => deadlineAt.getTime() + SLOT_LEASE_GRACE_MS;

export interface ChannelSlots {
  /** True when the task holds (or already held) a slot on the channel. */
  acquire(channel: Channel, taskId: string, leaseUntil: number): Promise<boolean>;
  release(channelId: string, taskId: string): Promise<void>;
  inUse(channelId: string): Promise<number>;
}

/** ACQUIRE as a command of the connection: EVALSHA, the script's text is not sent with every acquire. */
type SlotRedis = RedisClient & { slotAcquire(key: string, taskId: string, now: number, leaseUntil: number, maxInFlight: number): Promise<number> };

/**
 * Defined where the connection is made, before its first command (worker-app.ts): on a connection
 * with auto-pipelining ioredis drops a command defined while an auto-pipeline is being filled
 * (redis/ioredis#1931).
 */
function slotRedis(redis: RedisClient): SlotRedis {
  const r = redis as SlotRedis;
  if (typeof r.slotAcquire !== 'function') r.defineCommand('slotAcquire', { numberOfKeys: 1, lua: ACQUIRE });
  return r;
}

export function createChannelSlots(redis: RedisClient, prefix: string): ChannelSlots {
  const scripts = slotRedis(redis);
  // The gateway reads the same sets for its renders-in-flight gauge: one key format for both.
  const key = (channelId: string) => channelSlotsKey(prefix, channelId);
  return {
    async acquire(channel, taskId, leaseUntil) {
      const r = await scripts.slotAcquire(key(channel.id), taskId, Date.now(), leaseUntil, channel.maxInFlight);
      return r === 1;
    },
    async release(channelId, taskId) {
      await redis.zrem(key(channelId), taskId);
    },
    async inUse(channelId) {
      // Lapsed leases out, then the count: one pipeline on one key (one slot, so also on a cluster),
      // run in that order, one round trip instead of two.
      const [[pruneErr], [countErr, n]] = (await redis.pipeline().zremrangebyscore(key(channelId), '-inf', Date.now()).zcard(key(channelId)).exec())!;
      if (pruneErr || countErr) throw pruneErr ?? countErr;
      return n as number;
    },
  };
}
