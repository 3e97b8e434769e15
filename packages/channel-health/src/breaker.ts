// A circuit breaker per channel, shared by every worker through Redis (one hash per channel,
// updated by Lua scripts so concurrent workers never lose an update).
//
//   closed     tasks use the channel. `failures` consecutive failed/transient outcomes, all within
//              `windowMs` of the first, open it (a success resets the streak).
//   open       new attempts skip it for `cooldownMs`. Renders already running on it carry on.
//   half-open  after the cool-down, the first task that asks becomes the probe and may use it
//              (others still skip it). A success closes the breaker; a failure opens it again for
//              another cool-down. A probe that reports nothing within `cooldownMs` (its render is
//              slow, or it waits for a slot) lets another task probe.
//
// Outcomes: a finished render is a success. A submit the upstream accepted says nothing yet (the
// render may still fail), and violations and unusable files are about the task, not the channel.
import type { Redis } from 'ioredis';
import { healthKey, minuteOf, outcomesKey, RECENT_MINUTES, registryKey } from './keys';

export type Outcome = 'succeeded' | 'failed' | 'transient' | 'violation' | 'unusable';
export type BreakerState = 'closed' | 'open' | 'half-open';
/** closed: use it; probe: use it as the half-open probe; open: skip it. */
export type Admission = 'closed' | 'probe' | 'open';

export interface BreakerSettings {
  /** Consecutive failed/transient outcomes that open the breaker; 0 turns the breaker off. */
  failures: number;
  windowMs: number;
  cooldownMs: number;
}

export interface ChannelInfo {
  id: string;
  models: string[];
  tier: string | null;
  costOrder: number;
  enabled: boolean;
  maxInFlight: number;
  /** The channel's adapter can cancel a running render upstream (the gateway's cancel reads it). */
  cancel?: boolean;
}

// KEYS: health hash, outcome bucket. ARGV: outcome, now, failures, windowMs, cooldownMs, error, bucket ttl (s).
// Returns the state it moved the breaker to, or '' when it stayed.
const RECORD = `
local outcome, now = ARGV[1], tonumber(ARGV[2])
local threshold, window, cooldown = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
redis.call('HINCRBY', KEYS[2], outcome, 1)
redis.call('EXPIRE', KEYS[2], tonumber(ARGV[7]))
local state = redis.call('HGET', KEYS[1], 'state') or 'closed'
if outcome == 'succeeded' then
  redis.call('HSET', KEYS[1], 'lastSuccessAt', now, 'failures', 0)
  if state == 'half-open' then
    redis.call('HSET', KEYS[1], 'state', 'closed')
    redis.call('HDEL', KEYS[1], 'probeTask', 'probeUntil', 'openedAt', 'openUntil')
    return 'closed'
  end
  return ''
end
if outcome ~= 'failed' and outcome ~= 'transient' then return '' end
redis.call('HSET', KEYS[1], 'lastFailureAt', now, 'lastError', ARGV[6], 'lastErrorKind', outcome)
if state == 'half-open' then
  redis.call('HSET', KEYS[1], 'state', 'open', 'openedAt', now, 'openUntil', now + cooldown, 'failures', 0)
  redis.call('HDEL', KEYS[1], 'probeTask', 'probeUntil')
  return 'open'
end
if state == 'open' or threshold <= 0 then return '' end
local failures = tonumber(redis.call('HGET', KEYS[1], 'failures') or '0')
local start = tonumber(redis.call('HGET', KEYS[1], 'streakStart') or '0')
if failures == 0 or now - start > window then
  failures, start = 0, now
end
failures = failures + 1
if failures >= threshold then
  redis.call('HSET', KEYS[1], 'state', 'open', 'openedAt', now, 'openUntil', now + cooldown, 'failures', 0)
  return 'open'
end
redis.call('HSET', KEYS[1], 'failures', failures, 'streakStart', start)
return ''`;

// KEYS: health hash. ARGV: task id, now, probe lease ms. Returns closed | probe | probe-new | open.
const ADMIT = `
local h = redis.call('HMGET', KEYS[1], 'state', 'openUntil', 'probeTask', 'probeUntil')
local state = h[1] or 'closed'
if state == 'closed' then return 'closed' end
local now = tonumber(ARGV[2])
if state == 'open' then
  if now < tonumber(h[2] or '0') then return 'open' end
  redis.call('HSET', KEYS[1], 'state', 'half-open', 'probeTask', ARGV[1], 'probeUntil', now + tonumber(ARGV[3]))
  return 'probe-new'
end
if h[3] == ARGV[1] then return 'probe' end
if now >= tonumber(h[4] or '0') then
  redis.call('HSET', KEYS[1], 'probeTask', ARGV[1], 'probeUntil', now + tonumber(ARGV[3]))
  return 'probe'
end
return 'open'`;

export interface ChannelHealth {
  readonly settings: BreakerSettings;
  /** Counts an outcome; returns the state the breaker moved to, or null when it stayed. */
  record(channelId: string, outcome: Outcome, error?: string): Promise<BreakerState | null>;
  /** May this task start an attempt on the channel? `moved` is set when it opened the half-open probe. */
  admit(channelId: string, taskId: string): Promise<{ admission: Admission; moved: BreakerState | null }>;
  /** When each channel last failed (0: never), for choosing among channels that are all open. */
  lastFailures(channelIds: string[]): Promise<Map<string, number>>;
  /** Publishes this worker's channel list for the gateway's /admin/channels and gauges. */
  register(channels: ChannelInfo[]): Promise<void>;
}

export function createChannelHealth(redis: Redis, prefix: string, settings: BreakerSettings): ChannelHealth {
  const bucketTtlSec = RECENT_MINUTES * 60 + 60;
  return {
    settings,
    async record(channelId, outcome, error = '') {
      const now = Date.now();
      const moved = (await redis.eval(
        RECORD, 2, healthKey(prefix, channelId), outcomesKey(prefix, channelId, minuteOf(now)),
        outcome, now, settings.failures, settings.windowMs, settings.cooldownMs, error.slice(0, 300), bucketTtlSec,
      )) as string;
      return moved ? (moved as BreakerState) : null;
    },
    async admit(channelId, taskId) {
      if (settings.failures <= 0) return { admission: 'closed', moved: null };
      const r = (await redis.eval(ADMIT, 1, healthKey(prefix, channelId), taskId, Date.now(), settings.cooldownMs)) as string;
      if (r === 'probe-new') return { admission: 'probe', moved: 'half-open' };
      return { admission: r as Admission, moved: null };
    },
    async lastFailures(channelIds) {
      const p = redis.pipeline();
      for (const id of channelIds) p.hget(healthKey(prefix, id), 'lastFailureAt');
      const res = (await p.exec()) ?? [];
      return new Map(channelIds.map((id, i) => [id, Number(res[i]?.[1] ?? 0)]));
    },
    async register(channels) {
      if (channels.length === 0) return;
      await redis.hset(registryKey(prefix), Object.fromEntries(channels.map((c) => [c.id, JSON.stringify(c)])));
    },
  };
}
