// Limits per client address, for what has no account to count against:
// - /files downloads (public URLs, no credential): FILES_RATE_LIMIT_PER_MINUTE per address;
// - failed authentication (API keys, the admin and metrics tokens): AUTH_FAILURES_PER_MINUTE per
//   address. Once an address is over, every gateway that saw it refuses its unknown credentials from
//   memory with 429 before any database lookup, so guessing keys costs the guesser, not our
//   database. Failures are throttled, not the clients behind the address: a credential this gateway
//   knows to be valid (a key in its key cache, the admin or metrics token) is still served, so one
//   client guessing keys does not take down every other client behind the same NAT or proxy.
// Counted in Redis, so all gateways share one window. Failures are counted one by one (the same
// fixed-window script as the account rate limit). Requests (/files, /hooks/upstream without a valid
// per-task token) are admitted from reservations, as the account rate limit's are (rate-tokens.ts):
// a gateway reserves a few of an address's requests at once and admits them from memory, so a
// request waits for Redis only when its gateway holds none; below 100 a minute every request is
// counted in Redis. A provider's callback with its task's token is not counted at all, so it goes
// on to wake its task without a round trip of its own first (time to result).
// The address is the TCP peer unless TRUST_PROXY names the proxies in front (client-address.ts).
import type { Request, RequestHandler } from 'express';
import { AppError } from '@mediagen/errors';
import type { GatewayCore } from '../core';
import { hitRedis } from './rate-window';
import { RateTokens, type Verdict } from './rate-tokens';

const WINDOW_MS = 60_000;
const MAX_TRACKED = 10_000;

/** The client address of a request under this gateway's TRUST_PROXY (also what Express's req.ip says). */
export type ClientAddress = (req: Request) => string;

/** What a limiter counts with: Redis, the key prefix, and how this gateway reads a client's address. */
export type LimiterDeps = Pick<GatewayCore, 'redis' | 'config'> & { clientAddress: ClientAddress };

export class AddressLimiter {
  /** Addresses over the limit, with when their window ends; checked without a round trip. */
  private readonly blocked = new Map<string, number>();

  constructor(readonly deps: LimiterDeps, private readonly name: string, readonly perMinute: number) {}

  /** Seconds until `ip` may try again, or 0 when it is not blocked. */
  blockedFor(ip: string): number {
    const until = this.blocked.get(ip);
    if (until === undefined) return 0;
    const left = until - Date.now();
    if (left <= 0) {
      this.blocked.delete(ip);
      return 0;
    }
    return Math.ceil(left / 1000);
  }

  /** Counts one event for `ip`; the seconds to wait when this one went over the limit, else 0. */
  async hit(ip: string): Promise<number> {
    let hits: number;
    let ttlMs: number;
    try {
      [hits, ttlMs] = await hitRedis(this.deps.redis).rateLimitHit(`${this.deps.config.REDIS_PREFIX}:ip:${this.name}:${ip}`, WINDOW_MS);
    } catch {
      return 0; // Redis down: not limited (as the account limit), never a 500
    }
    if (hits <= this.perMinute) return 0;
    if (this.blocked.size >= MAX_TRACKED) this.blocked.clear();
    this.blocked.set(ip, Date.now() + ttlMs);
    return Math.max(1, Math.ceil(ttlMs / 1000));
  }
}

export const tooMany = (what: string, retryAfterS: number) =>
  new AppError('rate_limited', `Too many ${what} from this address; retry after the time in the Retry-After header`, undefined, undefined, {
    'Retry-After': String(retryAfterS),
  });

/**
 * Requests per address and minute, shared by all gateways: at most `perMinute` are admitted in a
 * window whatever the number of gateways; spread over N gateways, an address may be refused up to
 * (batch - 1) x (N - 1) requests below it (rate-tokens.ts: the batch is 1% of the limit, at most 100).
 */
export class AddressRequests {
  private readonly tokens: RateTokens;
  private readonly prefix: string;

  constructor(readonly deps: LimiterDeps, name: string, readonly perMinute: number) {
    this.tokens = new RateTokens(deps.redis, WINDOW_MS);
    this.prefix = `${deps.config.REDIS_PREFIX}:ip:${name}:`;
  }

  /** Admits or refuses one request of `ip`; synchronous while this gateway holds reserved requests. */
  take(ip: string): Verdict | Promise<Verdict> {
    return this.tokens.take(this.prefix + ip, this.perMinute);
  }
}

const refusal = (what: string, v: Verdict) => (v.admitted ? undefined : tooMany(what, Math.max(1, Math.ceil(v.resetMs / 1000))));

/** Every request counts (downloads of public files, upstream callbacks), but those `exempt` says are vouched for from memory. */
export function addressRateLimit(limiter: AddressRequests, what: string, exempt?: (req: Request) => boolean): RequestHandler {
  const addressOf = limiter.deps.clientAddress;
  return (req, _res, next) => {
    if (exempt?.(req)) return next();
    const v = limiter.take(addressOf(req));
    if (!(v instanceof Promise)) return next(refusal(what, v));
    // Redis down: not limited (as the account limit), never a 500.
    v.then((w) => next(refusal(what, w)), () => next());
  };
}

/** What guardAuth needs: the failed-authentication limiter of this gateway (shared by API-key and admin authentication) and the address reader. */
export interface AuthGuardDeps {
  authFailures: AddressLimiter;
  clientAddress: ClientAddress;
}

/**
 * Runs `check` (which throws the 401); a failure is counted and turns into 429 once the address is
 * over the limit. While the address is blocked, a request is refused with 429 before `check` (no
 * lookup) unless `vouched()` says, from memory, that its credential is one this gateway knows to be
 * valid; a vouched credential that turns out not to be (revoked meanwhile) is counted as a failure.
 */
export async function guardAuth<T>(deps: AuthGuardDeps, req: Request, check: () => Promise<T> | T, vouched?: () => boolean): Promise<T> {
  const limiter = deps.authFailures;
  const ip = deps.clientAddress(req);
  const wait = limiter.blockedFor(ip);
  if (wait > 0 && !vouched?.()) throw tooMany('failed authentication attempts', wait);
  try {
    return await check();
  } catch (e) {
    if (e instanceof AppError && e.code === 'unauthorized') {
      const w = await limiter.hit(ip);
      if (w > 0) throw tooMany('failed authentication attempts', w);
    }
    throw e;
  }
}
