// The fixed-window counter in Redis that the request-rate limits share: the per-address limits
// (ip-limits.ts) count every hit with it, the per-account limit (rate-limit.ts) reserves hits in
// batches (rate-tokens.ts). Its own file, importing nothing of the gateway, so redis-scripts.ts can
// define it at start-up without importing the middleware (and the middleware, deps.ts).
import type { RedisClient } from '@mediagen/queue';

// A key's first hit of a window creates the counter with the window as its expiry; later hits
// increment it. Answers {hits, ms until the window resets}. The per-address limits (ip-limits.ts)
// count every hit this way; the per-account limit reserves hits in batches (rate-tokens.ts).
const HIT = `
local ttl = redis.call("PTTL", KEYS[1])
local hits
if ttl <= 0 then
  redis.call("SET", KEYS[1], 1, "PX", ARGV[1])
  hits = 1
  ttl = tonumber(ARGV[1])
else
  hits = redis.call("INCR", KEYS[1])
end
return { hits, ttl }`;

export type HitRedis = RedisClient & {
  rateLimitHit(key: string, windowMs: number): Promise<[number, number]>;
};

/** The Redis connection with the window-counting script defined (once per connection). */
export function hitRedis(redis: RedisClient): HitRedis {
  const r = redis as HitRedis;
  if (typeof r.rateLimitHit !== 'function') r.defineCommand('rateLimitHit', { numberOfKeys: 1, lua: HIT });
  return r;
}
