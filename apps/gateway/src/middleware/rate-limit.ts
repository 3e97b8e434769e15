// Request-rate limit per account (the service spec's HTTP statuses: "rate limit exceeded" -> 429). Counted in Redis so
// every gateway instance shares one window; headers follow the IETF RateLimit fields draft.
// The numeric limit is not in the spec: RATE_LIMIT_PER_MINUTE, overridable per account. It is
// counted per account, not per API key: the limit is an account setting, and N keys of one account
// must not buy N times the limit.
//
// A fixed window of one minute per account in Redis (the keys express-rate-limit with
// rate-limit-redis used here before), whose requests each gateway reserves a few at a time
// (rate-tokens.ts: never more than the limit across gateways; most requests cost no round trip).
import { createHash } from 'node:crypto';
import type { NextFunction, RequestHandler, Response } from 'express';
import { AppError } from '@mediagen/errors';
import type { GatewayCore } from '../core';
import type { AuthContext } from './auth';
import { RateTokens, Verdict } from './rate-tokens';

const WINDOW_MS = 60_000;
const WINDOW_S = WINDOW_MS / 1000;
/** The policy name in the RateLimit headers. */
const POLICY = 'per-account';

const resetSeconds = (v: Verdict): number => Math.max(0, Math.ceil(v.resetMs / 1000));

/** The draft's partition key: a short digest, so the header does not reveal the key id. */
const partitionKey = (key: string): string =>
  Buffer.from(createHash('sha256').update(key).digest('hex').slice(0, 12)).toString('base64');

export interface AccountRateLimit {
  /** The middleware: counts the request against req.auth's account; 429 past the limit. */
  middleware: RequestHandler;
  /**
   * Counts one request of `auth`'s account when this gateway can admit it from its reservation
   * (no Redis round trip, no promise) and answers its two RateLimit header values; null, without
   * counting anything, when the middleware must decide (a reservation to make, or a refusal).
   */
  admitNow(auth: AuthContext): [rateLimit: string, policy: string] | null;
}

export const requestRateLimit = (deps: { accountRateLimit: AccountRateLimit }): RequestHandler => deps.accountRateLimit.middleware;

/** The account rate limit of one gateway (built once per deps, in createDeps: its reservations are per process). */
export function createAccountRateLimit(deps: Pick<GatewayCore, 'redis' | 'config' | 'log'>): AccountRateLimit {
  const tokens = new RateTokens(deps.redis, WINDOW_MS);
  const prefix = `${deps.config.REDIS_PREFIX}:rl:`;
  const policies = new Map<string, { limit: number; value: string }>();

  const limitOf = (auth: AuthContext | undefined) => auth?.rateLimitPerMinute ?? deps.config.RATE_LIMIT_PER_MINUTE;
  const headerValues = (key: string, limit: number, v: Verdict): [string, string] => {
    // The policy value changes only with the limit: built once per account and limit.
    let policy = policies.get(key);
    if (policy === undefined || policy.limit !== limit) {
      if (policies.size >= 10_000) policies.clear();
      policy = { limit, value: `"${POLICY}"; q=${limit}; w=${WINDOW_S}; pk=:${partitionKey(key)}:` };
      policies.set(key, policy);
    }
    return [`"${POLICY}"; r=${v.remaining}; t=${resetSeconds(v)}`, policy.value];
  };

  const answer = (res: Response, next: NextFunction, key: string, limit: number, v: Verdict) => {
    const [rateLimit, policy] = headerValues(key, limit, v);
    res.append('RateLimit', rateLimit);
    res.append('RateLimit-Policy', policy);
    if (v.admitted) return next();
    const resetS = String(resetSeconds(v));
    res.setHeader('Retry-After', resetS);
    next(
      new AppError('rate_limited', 'Too many requests for this account; retry after the time in the Retry-After header', undefined, undefined, {
        'Retry-After': resetS,
      }),
    );
  };

  const middleware: RequestHandler = (req, res, next) => {
    const key = req.auth?.accountId ?? 'anonymous';
    const limit = limitOf(req.auth);
    const v = tokens.take(prefix + key, limit);
    if (!(v instanceof Promise)) return answer(res, next, key, limit, v);
    v.then(
      (verdict) => answer(res, next, key, limit, verdict),
      (err: Error) => {
        // A Redis outage must not block polls; submits check Redis themselves and answer 503.
        deps.log.error({ err: err.message }, 'rate limit store failed; request allowed without rate limiting');
        next();
      },
    );
  };

  const admitNow = (auth: AuthContext): [string, string] | null => {
    const limit = limitOf(auth);
    const v = tokens.admitFromMemory(prefix + auth.accountId, limit);
    return v === null ? null : headerValues(auth.accountId, limit, v);
  };
  return { middleware, admitNow };
}
