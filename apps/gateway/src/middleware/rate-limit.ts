// Request-rate limit per account (spec 7.1: "rate limit exceeded" -> 429). Counted in Redis so
// every gateway instance shares one window; headers follow the IETF RateLimit fields draft.
// The numeric limit is not in the spec: RATE_LIMIT_PER_MINUTE, overridable per account. It is
// counted per account, not per API key: the limit is an account setting, and N keys of one account
// must not buy N times the limit (issue 11.11).
//
// A fixed window of one minute per account in Redis (the keys express-rate-limit with
// rate-limit-redis used here before), whose requests each gateway reserves a few at a time
// (rate-tokens.ts: never more than the limit across gateways; most requests cost no round trip).
import { createHash } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { AppError } from '@mediagen/errors';
import type { RedisClient } from '@mediagen/queue';
import type { GatewayDeps } from '../deps';
import { RateTokens, Verdict } from './rate-tokens';

const WINDOW_MS = 60_000;
const WINDOW_S = WINDOW_MS / 1000;
/** The policy name in the RateLimit headers. */
const POLICY = 'per-account';

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

/** The draft's partition key: a short digest, so the header does not reveal the key id. */
const partitionKey = (key: string): string =>
  Buffer.from(createHash('sha256').update(key).digest('hex').slice(0, 12)).toString('base64');

/** The Redis connection with the window-counting script defined (once per connection). */
export function hitRedis(redis: RedisClient): HitRedis {
  const r = redis as HitRedis;
  if (typeof r.rateLimitHit !== 'function') r.defineCommand('rateLimitHit', { numberOfKeys: 1, lua: HIT });
  return r;
}

export function requestRateLimit(deps: GatewayDeps): RequestHandler {
  const tokens = new RateTokens(deps.redis, WINDOW_MS);
  const prefix = `${deps.config.REDIS_PREFIX}:rl:`;
  const partitions = new Map<string, string>();

  const answer = (req: Request, res: Response, next: NextFunction, key: string, limit: number, v: Verdict) => {
    const resetS = Math.max(0, Math.ceil(v.resetMs / 1000));
    let pk = partitions.get(key);
    if (pk === undefined) {
      if (partitions.size >= 10_000) partitions.clear();
      pk = partitionKey(key);
      partitions.set(key, pk);
    }
    res.append('RateLimit', `"${POLICY}"; r=${v.remaining}; t=${resetS}`);
    res.append('RateLimit-Policy', `"${POLICY}"; q=${limit}; w=${WINDOW_S}; pk=:${pk}:`);
    if (v.admitted) return next();
    res.setHeader('Retry-After', String(resetS));
    next(
      new AppError('rate_limited', 'Too many requests for this account; retry after the time in the Retry-After header', undefined, undefined, {
        'Retry-After': String(resetS),
      }),
    );
  };

  return (req, res, next) => {
    const key = req.auth?.accountId ?? 'anonymous';
    const limit = req.auth?.rateLimitPerMinute ?? deps.config.RATE_LIMIT_PER_MINUTE;
    const v = tokens.take(prefix + key, limit);
    if (!(v instanceof Promise)) return answer(req, res, next, key, limit, v);
    v.then(
      (verdict) => answer(req, res, next, key, limit, verdict),
      (err: Error) => {
        // A Redis outage must not block polls; submits check Redis themselves and answer 503.
        deps.log.error({ err: err.message }, 'rate limit store failed; request allowed without rate limiting');
        next();
      },
    );
  };
}
