// Bearer API-key authentication (spec section 5). Lookups are cached in-process for a few
// seconds; a revocation evicts the entry at once in every gateway through Redis pub/sub.
import type { RequestHandler } from 'express';
import { findApiKeyByHash } from '@mediagen/db';
import { AppError } from '@mediagen/errors';
import type { GatewayDeps } from '../deps';
import { hashApiKey, looksLikeApiKey } from '../services/api-keys';

export interface AuthContext {
  apiKeyId: string;
  accountId: string;
  rateLimitPerMinute: number | null;
}

declare module 'express-serve-static-core' {
  interface Request {
    auth?: AuthContext;
  }
}

const CACHE_MS = 5_000;
const CACHE_MAX = 10_000;

const unauthorized = (msg: string) =>
  new AppError('unauthorized', msg, undefined, undefined, { 'WWW-Authenticate': 'Bearer realm="api"' });

export function apiKeyAuth(deps: GatewayDeps): RequestHandler {
  const cache = new Map<string, { ctx: AuthContext; until: number }>();
  deps.events.onKeyRevoked((hash) => cache.delete(hash));

  return async (req, _res, next) => {
    try {
      const header = req.headers.authorization;
      if (!header) throw unauthorized('Missing Authorization header; send "Authorization: Bearer <API_KEY>"');
      const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!m || !looksLikeApiKey(m[1])) throw unauthorized('Malformed Authorization header; expected "Bearer <API_KEY>"');
      const hash = hashApiKey(m[1]);
      const now = Date.now();
      const hit = cache.get(hash);
      if (hit && hit.until > now) {
        req.auth = hit.ctx;
        return next();
      }
      const key = await findApiKeyByHash(deps.db, hash);
      if (!key || key.revoked) {
        cache.delete(hash);
        throw unauthorized('Invalid or revoked API key');
      }
      const ctx: AuthContext = { apiKeyId: key.apiKeyId, accountId: key.accountId, rateLimitPerMinute: key.rateLimitPerMinute };
      if (cache.size >= CACHE_MAX) cache.clear();
      cache.set(hash, { ctx, until: now + CACHE_MS });
      req.auth = ctx;
      next();
    } catch (e) {
      next(e);
    }
  };
}
