// Request-rate limit per API key (spec 7.1: "rate limit exceeded" -> 429). Counted in Redis so
// every gateway instance shares one window; headers follow the IETF RateLimit fields draft.
// The numeric limit is not in the spec: RATE_LIMIT_PER_MINUTE, overridable per account.
import { rateLimit } from 'express-rate-limit';
import { RedisStore } from 'rate-limit-redis';
import type { RequestHandler } from 'express';
import { AppError } from '@mediagen/errors';
import type { GatewayDeps } from '../deps';

export function requestRateLimit(deps: GatewayDeps): RequestHandler {
  return rateLimit({
    windowMs: 60_000,
    limit: (req) => req.auth?.rateLimitPerMinute ?? deps.config.RATE_LIMIT_PER_MINUTE,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    identifier: 'per-key',
    keyGenerator: (req) => req.auth?.apiKeyId ?? 'anonymous',
    // A Redis outage must not block polls; submits check Redis themselves and answer 503.
    passOnStoreError: true,
    store: new RedisStore({
      prefix: `${deps.config.REDIS_PREFIX}:rl:`,
      sendCommand: (command: string, ...args: string[]) =>
        deps.redis.call(command, ...args) as Promise<number>,
    }),
    handler: (_req, res, next) =>
      next(
        new AppError('rate_limited', 'Too many requests for this API key; retry after the time in the Retry-After header', undefined, undefined, {
          'Retry-After': String(res.getHeader('Retry-After') ?? 60),
        }),
      ),
  });
}
