// Bearer API-key authentication (spec section 5). Lookups are cached in-process for a few
// seconds; a revocation evicts the entry at once in every gateway through Redis pub/sub.
// Hostile callers (issue 11.5, 11.16, 11.17):
// - keys the database does not know are remembered for NEGATIVE_CACHE_MS, so repeating a bogus key
//   costs no lookup, and failures count against the client address (ip-limits.ts): past
//   AUTH_FAILURES_PER_MINUTE the address gets 429 before any lookup;
// - a revocation that arrives while a lookup is in flight wins: the lookup's answer is not cached
//   (a per-process revocation counter is compared before and after it);
// - in production the public development key is refused whatever the database says.
import type { RequestHandler } from 'express';
import { findApiKeyByHash } from '@mediagen/db';
import { AppError } from '@mediagen/errors';
import type { GatewayDeps } from '../deps';
import { DEV_API_KEY_HASH, hashApiKey, looksLikeApiKey } from '../services/api-keys';
import { authFailures, clientAddress, guardAuth } from './ip-limits';

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
const NEGATIVE_CACHE_MS = 30_000;

const unauthorized = (msg: string) =>
  new AppError('unauthorized', msg, undefined, undefined, { 'WWW-Authenticate': 'Bearer realm="api"' });

export function apiKeyAuth(deps: GatewayDeps): RequestHandler {
  const cache = new Map<string, { ctx: AuthContext; until: number }>();
  const unknown = new Map<string, number>();
  let revocations = 0;
  deps.events.onKeyRevoked((hash) => {
    revocations++;
    cache.delete(hash);
  });
  const production = deps.config.NODE_ENV === 'production';

  const authenticate = async (header: string | undefined): Promise<{ ctx: AuthContext; hash: string }> => {
    if (!header) throw unauthorized('Missing Authorization header; send "Authorization: Bearer <API_KEY>"');
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m || !looksLikeApiKey(m[1])) throw unauthorized('Malformed Authorization header; expected "Bearer <API_KEY>"');
    const hash = hashApiKey(m[1]);
    if (production && hash === DEV_API_KEY_HASH) throw unauthorized('Invalid or revoked API key');
    const now = Date.now();
    const hit = cache.get(hash);
    if (hit && hit.until > now) return { ctx: hit.ctx, hash };
    const miss = unknown.get(hash);
    if (miss !== undefined && miss > now) throw unauthorized('Invalid or revoked API key');
    const seen = revocations;
    const key = await findApiKeyByHash(deps.db, hash);
    if (!key || key.revoked) {
      cache.delete(hash);
      if (unknown.size >= CACHE_MAX) unknown.clear();
      unknown.set(hash, now + NEGATIVE_CACHE_MS);
      throw unauthorized('Invalid or revoked API key');
    }
    const ctx: AuthContext = { apiKeyId: key.apiKeyId, accountId: key.accountId, rateLimitPerMinute: key.rateLimitPerMinute };
    // A revocation published while the lookup ran may concern this key: answer, but do not cache.
    if (revocations === seen) {
      if (cache.size >= CACHE_MAX) cache.clear();
      cache.set(hash, { ctx, until: now + CACHE_MS });
    }
    return { ctx, hash };
  };

  // The cache by the Authorization header as sent: a known key costs one Map look-up, no parsing,
  // no sha256 and no promise. Entries point at the hash-keyed entry, so a revocation (which evicts
  // that one) ends them too.
  const failures = authFailures(deps);
  const byHeader = new Map<string, { hash: string; entry: { ctx: AuthContext; until: number } }>();
  return (req, _res, next) => {
    const header = req.headers.authorization;
    if (header !== undefined) {
      const known = byHeader.get(header);
      // An address blocked for failed attempts is refused whatever it sends (guardAuth's order).
      if (known !== undefined && known.entry.until > Date.now() && cache.get(known.hash) === known.entry && failures.blockedFor(clientAddress(req)) === 0) {
        req.auth = known.entry.ctx;
        return next();
      }
    }
    guardAuth(deps, req, () => authenticate(header)).then(({ ctx, hash }) => {
      req.auth = ctx;
      if (header !== undefined && header.length <= 300) {
        const entry = cache.get(hash);
        if (entry !== undefined && entry.ctx === ctx) {
          if (byHeader.size >= CACHE_MAX) byHeader.clear();
          byHeader.set(header, { hash, entry });
        }
      }
      next();
    }, next);
  };
}
