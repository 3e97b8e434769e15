// Redis keys of the per-channel state every worker shares (and the gateway reads). All start with
// REDIS_PREFIX, so deployments and test files sharing one Redis stay apart.
//
// The breaker's script (breaker.ts RECORD) touches a channel's health hash, its outcome bucket and
// its streak set at once; on a Redis Cluster the keys of one script must sit in one hash slot, so
// those three carry the channel id as hash tag (`{id}`), and different channels spread over the
// masters. REDIS_PREFIX holds no braces on a cluster (packages/config), so the tag is always ours.
import type { Cluster, Redis } from 'ioredis';

/** A single-server or cluster connection (packages/queue RedisClient). */
export type RedisClient = Redis | Cluster;

/** The hash tag of a channel's breaker keys. */
const tag = (channelId: string) => `{${channelId}}`;

/** Hash: breaker state of one channel (breaker.ts). */
export const healthKey = (prefix: string, channelId: string) => `${prefix}:channel-health:${tag(channelId)}`;

/** Set: accounts whose failed renders are in the breaker's current streak (breaker.ts). */
export const streakAccountsKey = (prefix: string, channelId: string) => `${prefix}:channel-health:${tag(channelId)}:streak-accounts`;

/** Hash per minute: outcome -> count, expiring after the recent window. */
export const outcomesKey = (prefix: string, channelId: string, minute: number) => `${prefix}:channel-outcomes:${tag(channelId)}:${minute}`;

/** Hash: channel id -> JSON description, written by each worker at start (the gateway has no channel file). */
export const registryKey = (prefix: string) => `${prefix}:channels`;

/**
 * Sorted set: channel id -> when a running worker last reported it. Workers report their channels
 * every REGISTRY_REFRESH_MS; a channel no worker reported for REGISTRY_TTL_MS is not shown and is
 * removed (a development run's simulator channels must not linger in production's list on a shared Redis).
 */
export const registrySeenKey = (prefix: string) => `${prefix}:channels:seen`;
export const REGISTRY_REFRESH_MS = 30_000;
export const REGISTRY_TTL_MS = 3 * REGISTRY_REFRESH_MS;

/** Sorted set: tasks holding an in-flight slot on the channel (apps/worker channel-slots.ts). */
export const channelSlotsKey = (prefix: string, channelId: string) => `${prefix}:channel-slots:${channelId}`;

/** Outcome counts are kept per minute; "recent" means the current minute and the RECENT_MINUTES - 1 before it. */
export const RECENT_MINUTES = 5;
export const minuteOf = (ms: number) => Math.floor(ms / 60_000);

/** Hash: upstream model -> JSON, models the channel's upstream does not know (model-unavailable.ts). */
export const unavailableModelsKey = (prefix: string, channelId: string) => `${prefix}:channel-models-unavailable:${channelId}`;

/** Hash: upstream model -> JSON, the channel's last check results (check-results.ts). */
export const checkResultsKey = (prefix: string, channelId: string) => `${prefix}:channel-checks:${channelId}`;

/** Set: channels an operator disabled in the console; workers pick no new attempt on them. */
export const disabledChannelsKey = (prefix: string) => `${prefix}:channels-disabled`;
