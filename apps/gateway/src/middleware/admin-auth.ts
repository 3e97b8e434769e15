// Bearer-token checks: the admin API's guard, and the constant-time comparison that /metrics and
// Bull Board use too.
import type { Request, RequestHandler } from 'express';
import { AppError } from '@mediagen/errors';
import { bearerTokenMatcher } from '@mediagen/metrics';
import type { GatewayDeps } from '../deps';
import { guardAuth } from './ip-limits';

/** Does the request carry `Authorization: Bearer <one of tokens>`? Constant time (packages/metrics endpoint-access.ts). */
export function bearerMatches(...tokens: (string | undefined)[]): (req: Request) => boolean {
  const matches = bearerTokenMatcher(...tokens);
  return (req) => matches(req.headers.authorization);
}

/**
 * Bearer ADMIN_TOKEN, compared in constant time (hashing first equalises the lengths). Failed
 * attempts count against the client address (ip-limits.ts): guessing the token is throttled, and the
 * right token is served even from an address blocked for others' failures.
 */
export function adminAuth(deps: GatewayDeps): RequestHandler {
  const isAdmin = bearerMatches(deps.config.ADMIN_TOKEN);
  return (req, res, next) => {
    const ok = isAdmin(req);
    guardAuth(
      deps,
      req,
      () => {
        if (!ok) {
          throw new AppError('unauthorized', 'Admin endpoints need "Authorization: Bearer <ADMIN_TOKEN>"', undefined, undefined, { 'WWW-Authenticate': 'Bearer realm="admin"' });
        }
        // Admin answers reveal keys and balances: never kept by a browser or a shared cache.
        res.setHeader('Cache-Control', 'no-store');
      },
      () => ok,
    ).then(() => next(), next);
  };
}
