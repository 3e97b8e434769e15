// Bearer API-key authentication. Lookups are cached in-process for a few
// seconds; a revocation evicts the entry at once in every gateway through Redis pub/sub.
// Hostile callers:
// - keys the database does not know are remembered for NEGATIVE_CACHE_MS, so repeating a bogus key
//   costs no lookup, and failures count against the client address (ip-limits.ts): past
//   AUTH_FAILURES_PER_MINUTE the address gets 429 before any lookup for keys this gateway does not
//   know, while keys it found valid within VOUCH_MS are still served (throttle failures, not the
//   other clients behind a NAT or proxy);
// - a revocation that arrives while a lookup is in flight wins: the lookup's answer is not cached
//   (a per-process revocation counter is compared before and after it), and requests that arrive
//   after the revocation do not share that lookup;
// - in production the public development key is refused whatever the database says.
import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { findApiKeyByHash } from '@mediagen/db';
import { AppError } from '@mediagen/errors';
import type { GatewayCore } from '../core';
import { DEV_API_KEY_HASH, hashApiKey, looksLikeApiKey } from '../services/api-keys';
import { AuthGuardDeps, guardAuth } from './ip-limits';
import type { KeyUsage } from '../services/key-usage';

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
const REFRESH_MS = 1_000;
const CACHE_MAX = 10_000;
const NEGATIVE_CACHE_MS = 30_000;
/**
 * How long a key found valid still counts as known to this gateway when its address is blocked for
 * failed attempts: such a key is looked up (its cache entry lasts only CACHE_MS) instead of refused.
 */
const VOUCH_MS = 15 * 60_000;

const unauthorized = (msg: string) =>
  new AppError('unauthorized', msg, undefined, undefined, { 'WWW-Authenticate': 'Bearer realm="api"' });

export interface ApiKeyAuth {
  /** The middleware: sets req.auth or fails with 401 (429 for an address over its failures). */
  middleware: RequestHandler;
  /**
   * The caller of a request whose Authorization header this gateway already knows, decided from
   * memory (no parsing, hashing or promise); undefined when the middleware must decide.
   */
  known(req: Pick<IncomingMessage, 'headers'>): AuthContext | undefined;
}

export const apiKeyAuth = (deps: { apiKeys: ApiKeyAuth }): RequestHandler => deps.apiKeys.middleware;

type Entry = { ctx: AuthContext; until: number };

/** What the API-key authentication is built from: the key lookups, revocations, usage and the failure limiter. */
export type ApiKeyAuthDeps = Pick<GatewayCore, 'db' | 'events' | 'config'> & AuthGuardDeps & { keyUsage: KeyUsage };

/** The API-key authentication of one gateway (built once per deps, in createDeps: its caches are per process). */
export function createApiKeyAuth(deps: ApiKeyAuthDeps): ApiKeyAuth {
  const cache = new Map<string, Entry>();
  const unknown = new Map<string, number>();
  /** Keys found valid, with until when they count as known (VOUCH_MS). */
  const vouchedUntil = new Map<string, number>();
  let revocations = 0;
  // A key's state changed (revoked, or its account disabled or enabled again): forget both what
  // this gateway knew and what it knew it did not know.
  deps.events.onKeyRevoked((hash) => {
    revocations++;
    cache.delete(hash);
    unknown.delete(hash);
    vouchedUntil.delete(hash);
  });
  const production = deps.config.NODE_ENV === 'production';

  // One database lookup per key at a time: requests that need the same key meanwhile share it,
  // unless a revocation arrived since it started (then they start their own).
  const inFlight = new Map<string, { seen: number; done: Promise<AuthContext | null> }>();
  const lookup = (hash: string): Promise<AuthContext | null> => {
    const running = inFlight.get(hash);
    if (running !== undefined && running.seen === revocations) return running.done;
    const seen = revocations;
    const now = Date.now();
    const done = findApiKeyByHash(deps.db, hash).then((key) => {
      if (!key || key.revoked) {
        cache.delete(hash);
        vouchedUntil.delete(hash);
        if (unknown.size >= CACHE_MAX) unknown.clear();
        unknown.set(hash, now + NEGATIVE_CACHE_MS);
        return null;
      }
      const ctx: AuthContext = { apiKeyId: key.apiKeyId, accountId: key.accountId, rateLimitPerMinute: key.rateLimitPerMinute };
      // A revocation published while the lookup ran may concern this key: answer, but do not cache.
      if (revocations === seen) {
        if (vouchedUntil.size >= CACHE_MAX) vouchedUntil.clear();
        vouchedUntil.set(hash, now + VOUCH_MS);
        const entry = cache.get(hash);
        // A refreshed entry is updated in place, so the by-header entries that point at it stay valid.
        if (entry !== undefined) Object.assign(entry, { ctx, until: now + CACHE_MS });
        else {
          if (cache.size >= CACHE_MAX) cache.clear();
          cache.set(hash, { ctx, until: now + CACHE_MS });
        }
      }
      return ctx;
    });
    const flight = { seen, done };
    inFlight.set(hash, flight);
    const forget = () => {
      if (inFlight.get(hash) === flight) inFlight.delete(hash);
    };
    done.then(forget, forget);
    return done;
  };

  /** The key's hash when the header is a well-formed bearer key, else null. */
  const keyHash = (header: string | undefined): string | null => {
    const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    return m && looksLikeApiKey(m[1]) ? hashApiKey(m[1]) : null;
  };
  /** Known valid from memory (a fresh cache entry, or found valid within VOUCH_MS): no lookup needed to trust it is not a guess. */
  const vouched = (header: string | undefined): boolean => {
    const hash = keyHash(header);
    if (hash === null) return false;
    const now = Date.now();
    if ((cache.get(hash)?.until ?? 0) > now) return true;
    return (vouchedUntil.get(hash) ?? 0) > now;
  };

  const authenticate = async (header: string | undefined): Promise<{ ctx: AuthContext; hash: string }> => {
    if (!header) throw unauthorized('Missing Authorization header; send "Authorization: Bearer <API_KEY>"');
    const hash = keyHash(header);
    if (hash === null) throw unauthorized('Malformed Authorization header; expected "Bearer <API_KEY>"');
    if (production && hash === DEV_API_KEY_HASH) throw unauthorized('Invalid or revoked API key');
    const now = Date.now();
    const hit = cache.get(hash);
    if (hit && hit.until > now) return { ctx: hit.ctx, hash };
    const miss = unknown.get(hash);
    if (miss !== undefined && miss > now) throw unauthorized('Invalid or revoked API key');
    const ctx = await lookup(hash);
    if (ctx === null) throw unauthorized('Invalid or revoked API key');
    return { ctx, hash };
  };

  // The cache by the Authorization header as sent: a known key costs one Map look-up, no parsing,
  // no sha256 and no promise. Entries point at the hash-keyed entry, so a revocation (which evicts
  // that one) ends them too.
  const usage = deps.keyUsage;
  const byHeader = new Map<string, { hash: string; entry: Entry }>();
  const known = (req: Pick<IncomingMessage, 'headers'>): AuthContext | undefined => {
    const header = req.headers.authorization;
    if (header === undefined) return undefined;
    const k = byHeader.get(header);
    if (k === undefined) return undefined;
    const now = Date.now();
    // A known key is served whatever its address did (failures are throttled, not clients).
    if (k.entry.until <= now || cache.get(k.hash) !== k.entry) return undefined;
    // A key in use is looked up again shortly before its entry expires, so its requests never
    // wait for the lookup; the entry still ends CACHE_MS after the lookup that made it.
    if (k.entry.until - now < REFRESH_MS && !inFlight.has(k.hash)) lookup(k.hash).catch(() => undefined);
    usage.seen(k.entry.ctx.apiKeyId);
    return k.entry.ctx;
  };
  const middleware: RequestHandler = (req, _res, next) => {
    const cached = known(req);
    if (cached !== undefined) {
      req.auth = cached;
      return next();
    }
    const header = req.headers.authorization;
    guardAuth(deps, req, () => authenticate(header), () => vouched(header)).then(({ ctx, hash }) => {
      req.auth = ctx;
      usage.seen(ctx.apiKeyId);
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
  return { middleware, known };
}
