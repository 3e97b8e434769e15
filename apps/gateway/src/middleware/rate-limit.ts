// Request-rate limit per account (spec 7.1: "rate limit exceeded" -> 429). Counted in Redis so
// every gateway instance shares one window; headers follow the IETF RateLimit fields draft.
// The numeric limit is not in the spec: RATE_LIMIT_PER_MINUTE, overridable per account. It is
// counted per account, not per API key: the limit is an account setting, and N keys of one account
// must not buy N times the limit (issue 11.11).
//
// A fixed window of one minute per key, counted by one Lua script per request: the same script,
// keys and headers express-rate-limit with rate-limit-redis used here before, without their
// per-request overhead (a second sha256 per request, several awaits and validations), which cost
// the poll path about a fifth of its CPU (docs/benchmark.md).
import { createHash } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { AppError } from '@mediagen/errors';
import { isCluster, RedisClient } from '@mediagen/queue';
import type { GatewayDeps } from '../deps';

const WINDOW_MS = 60_000;
const WINDOW_S = WINDOW_MS / 1000;
/** The policy name in the RateLimit headers. */
const POLICY = 'per-account';

// A key's first hit of a window creates the counter with the window as its expiry; later hits
// increment it. Answers {hits, ms until the window resets}. The peeking variant also reads one
// more key in the same round trip (a poll's cache entry, see api.routes.ts).
const COUNT = `
local ttl = redis.call("PTTL", KEYS[1])
local hits
if ttl <= 0 then
  redis.call("SET", KEYS[1], 1, "PX", ARGV[1])
  hits = 1
  ttl = tonumber(ARGV[1])
else
  hits = redis.call("INCR", KEYS[1])
end`;
const HIT = `${COUNT}
return { hits, ttl }`;
const HIT_AND_PEEK = `${COUNT}
return { hits, ttl, redis.call("GET", KEYS[2]) }`;

declare module 'express-serve-static-core' {
  interface Request {
    /** A key read in the rate limiter's round trip, and what it held (null: nothing). */
    peeked?: { key: string; value: string | null };
  }
}

export type HitRedis = RedisClient & {
  rateLimitHit(key: string, windowMs: number): Promise<[number, number]>;
  rateLimitHitPeek(key: string, peekKey: string, windowMs: number): Promise<[number, number, string | null]>;
};

/** The draft's partition key: a short digest, so the header does not reveal the key id. */
const partitionKey = (key: string): string =>
  Buffer.from(createHash('sha256').update(key).digest('hex').slice(0, 12)).toString('base64');

/**
 * `peek` may name one Redis key to read in the same round trip as the count (the poll cache entry
 * of a poll), so a cached poll costs one round trip instead of two; the handler finds it in
 * `req.peeked`. Anything it names is only read.
 */
/** The Redis connection with the window-counting scripts defined (once per connection). */
export function hitRedis(redis: RedisClient): HitRedis {
  const r = redis as HitRedis;
  if (typeof r.rateLimitHit !== 'function') {
    r.defineCommand('rateLimitHit', { numberOfKeys: 1, lua: HIT });
    r.defineCommand('rateLimitHitPeek', { numberOfKeys: 2, lua: HIT_AND_PEEK });
  }
  return r;
}

export function requestRateLimit(deps: GatewayDeps, opts: { peek?: (req: Request) => string | null } = {}): RequestHandler {
  const redis = hitRedis(deps.redis);
  const prefix = `${deps.config.REDIS_PREFIX}:rl:`;
  const partitions = new Map<string, string>();
  // On a Redis Cluster the counter and the peeked key (another entity's key) sit in different hash
  // slots, and one script may only touch one slot: there the handler reads its key itself.
  const peek = isCluster(deps.redis) ? undefined : opts.peek;

  return async (req, res, next) => {
    const key = req.auth?.accountId ?? 'anonymous';
    let hits: number;
    let ttlMs: number;
    const peekKey = peek?.(req) ?? null;
    try {
      if (peekKey === null) [hits, ttlMs] = await redis.rateLimitHit(prefix + key, WINDOW_MS);
      else {
        let value: string | null;
        [hits, ttlMs, value] = await redis.rateLimitHitPeek(prefix + key, peekKey, WINDOW_MS);
        req.peeked = { key: peekKey, value };
      }
    } catch (err) {
      // A Redis outage must not block polls; submits check Redis themselves and answer 503.
      deps.log.error({ err: (err as Error).message }, 'rate limit store failed; request allowed without rate limiting');
      return next();
    }
    const limit = req.auth?.rateLimitPerMinute ?? deps.config.RATE_LIMIT_PER_MINUTE;
    const resetS = Math.max(0, Math.ceil(ttlMs / 1000));
    let pk = partitions.get(key);
    if (pk === undefined) {
      if (partitions.size >= 10_000) partitions.clear();
      pk = partitionKey(key);
      partitions.set(key, pk);
    }
    res.append('RateLimit', `"${POLICY}"; r=${Math.max(limit - hits, 0)}; t=${resetS}`);
    res.append('RateLimit-Policy', `"${POLICY}"; q=${limit}; w=${WINDOW_S}; pk=:${pk}:`);
    if (hits <= limit) return next();
    res.setHeader('Retry-After', String(resetS));
    next(
      new AppError('rate_limited', 'Too many requests for this account; retry after the time in the Retry-After header', undefined, undefined, {
        'Retry-After': String(resetS),
      }),
    );
  };
}
