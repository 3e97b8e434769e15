// Redis keys of the per-channel state every worker shares (and the gateway reads). All start with
// REDIS_PREFIX, so deployments and test files sharing one Redis stay apart.

/** Hash: breaker state of one channel (breaker.ts). */
export const healthKey = (prefix: string, channelId: string) => `${prefix}:channel-health:${channelId}`;

/** Set: accounts whose failed renders are in the breaker's current streak (breaker.ts). */
export const streakAccountsKey = (prefix: string, channelId: string) => `${prefix}:channel-health:${channelId}:streak-accounts`;

/** Hash per minute: outcome -> count, expiring after the recent window. */
export const outcomesKey = (prefix: string, channelId: string, minute: number) => `${prefix}:channel-outcomes:${channelId}:${minute}`;

/** Hash: channel id -> JSON description, written by each worker at start (the gateway has no channel file). */
export const registryKey = (prefix: string) => `${prefix}:channels`;

/** Sorted set: tasks holding an in-flight slot on the channel (apps/worker channel-slots.ts). */
export const channelSlotsKey = (prefix: string, channelId: string) => `${prefix}:channel-slots:${channelId}`;

/** Outcome counts are kept per minute; "recent" means the current minute and the RECENT_MINUTES - 1 before it. */
export const RECENT_MINUTES = 5;
export const minuteOf = (ms: number) => Math.floor(ms / 60_000);

/** Set: channels an operator disabled in the console; workers pick no new attempt on them. */
export const disabledChannelsKey = (prefix: string) => `${prefix}:channels-disabled`;
