// The gateway's Lua commands, defined on its Redis connection once, before the first command is sent.
// The connection auto-pipelines (deps.ts): ioredis builds one pipeline per tick, and a command defined
// while that pipeline is being filled is missing from it; the pipeline's callbacks then misalign and
// the process dies on an uncaught "results[i] is not iterable" (redis/ioredis#1931). Defining them
// lazily on a route's first use (the per-address limits did) hit exactly that under load.
import { wakeRedis, type RedisClient } from '@mediagen/queue';
import { hitRedis } from '../middleware/rate-window';
import { reserveRedis } from '../middleware/rate-tokens';
import { cacheRedis } from './poll-cache';

export const GATEWAY_SCRIPTS = ['rateLimitHit', 'rateLimitReserve', 'pollCacheRead', 'pollCacheFill', 'wakeCheck'] as const;

export function defineGatewayScripts(redis: RedisClient): void {
  hitRedis(redis);
  reserveRedis(redis);
  cacheRedis(redis);
  wakeRedis(redis); // upstream callbacks (upstream-callback.ts)
}
