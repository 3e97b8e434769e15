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
//
// Customers cannot trip it: a failed render may be about the request (a content refusal from a
// channel that does not report violations looks exactly like one), so within a streak failed
// renders count once per account. Five refusals of one tenant's prompts count as one; five
// accounts failing count as five. Infrastructure outcomes (transient: timeouts, connection
// errors, 429, 5xx) count every time, whoever's task met them.
import { disabledChannels } from './operator-disable';
import { healthKey, minuteOf, outcomesKey, RECENT_MINUTES, RedisClient, registryKey, registrySeenKey, REGISTRY_TTL_MS, streakAccountsKey } from './keys';

/** unknown_model: the upstream does not know the model; shown as the last error, never counted by the breaker (other models work). */
export type Outcome = 'succeeded' | 'failed' | 'transient' | 'violation' | 'unusable' | 'unknown_model';
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
  /**
   * What the channel renders of each model it maps (packages/providers coverage.ts): `renders` in
   * words ("everything sold", or "480p/768p · 5-15 s · effort 1x"), `limits` the restrictions.
   */
  coverage?: Record<string, { renders: string; limits: Record<string, unknown> }>;
  /** Our model (or variant) -> the upstream model it is sent to on this channel. */
  upstreamModels?: Record<string, string>;
}

// KEYS: health hash, outcome bucket, accounts of the current streak (set).
// ARGV: outcome, now, failures, windowMs, cooldownMs, error, bucket ttl (s), account ('' if unknown).
// Returns the state it moved the breaker to, or '' when it stayed.
const RECORD = `
local outcome, now = ARGV[1], tonumber(ARGV[2])
local threshold, window, cooldown = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local account = ARGV[8]
redis.call('HINCRBY', KEYS[2], outcome, 1)
redis.call('EXPIRE', KEYS[2], tonumber(ARGV[7]))
local state = redis.call('HGET', KEYS[1], 'state') or 'closed'
if outcome == 'succeeded' then
  redis.call('DEL', KEYS[3])
  redis.call('HSET', KEYS[1], 'lastSuccessAt', now, 'failures', 0)
  if state == 'half-open' then
    redis.call('HSET', KEYS[1], 'state', 'closed')
    redis.call('HDEL', KEYS[1], 'probeTask', 'probeUntil', 'openedAt', 'openUntil')
    return 'closed'
  end
  return ''
end
if outcome == 'unknown_model' then
  redis.call('HSET', KEYS[1], 'lastFailureAt', now, 'lastError', ARGV[6], 'lastErrorKind', outcome)
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
  redis.call('DEL', KEYS[3])
end
-- A failed render counts once per account within the streak (about the request, perhaps).
if outcome == 'failed' and account ~= '' then
  local fresh = redis.call('SADD', KEYS[3], account)
  redis.call('PEXPIRE', KEYS[3], window + 1000)
  if fresh == 0 then
    redis.call('HSET', KEYS[1], 'failures', failures, 'streakStart', start)
    return ''
  end
end
failures = failures + 1
if failures >= threshold then
  redis.call('HSET', KEYS[1], 'state', 'open', 'openedAt', now, 'openUntil', now + cooldown, 'failures', 0)
  redis.call('DEL', KEYS[3])
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
  /**
   * Counts an outcome; returns the state the breaker moved to, or null when it stayed. `account`:
   * whose task met it; failed renders of one account count once per streak.
   */
  record(channelId: string, outcome: Outcome, error?: string, account?: string): Promise<BreakerState | null>;
  /** May this task start an attempt on the channel? `moved` is set when it opened the half-open probe. */
  admit(channelId: string, taskId: string): Promise<{ admission: Admission; moved: BreakerState | null }>;
  /** When each channel last failed (0: never), for choosing among channels that are all open. */
  lastFailures(channelIds: string[]): Promise<Map<string, number>>;
  /** Publishes this worker's channel list for the gateway's /admin/channels and gauges. */
  /** Publishes (and refreshes) the channels this worker runs; call every REGISTRY_REFRESH_MS. */
  register(channels: ChannelInfo[], now?: number): Promise<void>;
  /** Channels an operator disabled (operator-disable.ts); optional so test doubles need not have it. */
  disabled?(): Promise<Set<string>>;
}

/** The breaker's scripts as commands of the connection (EVALSHA: the script's text is not sent with every call). */
type BreakerRedis = RedisClient & {
  breakerRecord(health: string, bucket: string, streak: string, ...argv: (string | number)[]): Promise<string>;
  breakerAdmit(health: string, taskId: string, now: number, leaseMs: number): Promise<string>;
};

/**
 * Defines the breaker's scripts on the connection, once. Called where the connection is made
 * (createChannelHealth, right after createRedis), before its first command: on a connection with
 * auto-pipelining, ioredis drops a command defined while an auto-pipeline is being filled
 * (redis/ioredis#1931).
 */
export function breakerRedis(redis: RedisClient): BreakerRedis {
  const r = redis as BreakerRedis;
  if (typeof r.breakerAdmit !== 'function') {
    r.defineCommand('breakerRecord', { numberOfKeys: 3, lua: RECORD });
    r.defineCommand('breakerAdmit', { numberOfKeys: 1, lua: ADMIT });
  }
  return r;
}

/**
 * The breaker state, as one read of its hash answers it, with which ADMIT lets a task in without
 * writing anything (a closed breaker, or none yet): such an admission may be decided from a read
 * sent beside the other reads of the choice (choice-reads.ts) instead of by the script.
 */
export const admitsWithoutWrite = (state: string | null | undefined): boolean => !state || state === 'closed';

/** `now`: the clock the breaker's windows and cool-downs are measured on (tests move it instead of sleeping). */
export function createChannelHealth(redis: RedisClient, prefix: string, settings: BreakerSettings, now: () => number = Date.now): ChannelHealth {
  const bucketTtlSec = RECENT_MINUTES * 60 + 60;
  const scripts = breakerRedis(redis);
  return {
    settings,
    async record(channelId, outcome, error = '', account = '') {
      const at = now();
      const moved = await scripts.breakerRecord(
        healthKey(prefix, channelId), outcomesKey(prefix, channelId, minuteOf(at)), streakAccountsKey(prefix, channelId),
        outcome, at, settings.failures, settings.windowMs, settings.cooldownMs, error.slice(0, 300), bucketTtlSec, account,
      );
      return moved ? (moved as BreakerState) : null;
    },
    async admit(channelId, taskId) {
      if (settings.failures <= 0) return { admission: 'closed', moved: null };
      const r = await scripts.breakerAdmit(healthKey(prefix, channelId), taskId, now(), settings.cooldownMs);
      if (r === 'probe-new') return { admission: 'probe', moved: 'half-open' };
      return { admission: r as Admission, moved: null };
    },
    async lastFailures(channelIds) {
      // One command per channel, not a pipeline: on a cluster the channels live in different slots.
      const res = await Promise.all(channelIds.map((id) => redis.hget(healthKey(prefix, id), 'lastFailureAt')));
      return new Map(channelIds.map((id, i) => [id, Number(res[i] ?? 0)]));
    },
    disabled: () => disabledChannels(redis, prefix),
    async register(channels, at = now()) {
      if (channels.length === 0) return;
      // One key per command: on a cluster the two keys may live on different masters.
      await redis.hset(registryKey(prefix), Object.fromEntries(channels.map((c) => [c.id, JSON.stringify(c)])));
      await redis.zadd(registrySeenKey(prefix), ...channels.flatMap((c) => [at, c.id]));
      // Channels no worker reported for a while leave the list (what the view already hides).
      const stale = await redis.zrangebyscore(registrySeenKey(prefix), '-inf', at - REGISTRY_TTL_MS);
      if (stale.length) {
        await redis.hdel(registryKey(prefix), ...stale);
        await redis.zrem(registrySeenKey(prefix), ...stale);
      }
    },
  };
}
