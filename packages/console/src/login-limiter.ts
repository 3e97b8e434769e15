// Password sign-in attempts, limited per (client address, name) and per address, in Redis so every
// gateway shares the counts. Used by the operators' console and by any other password sign-in (the
// account holders' pages): `scope` keeps their counts apart.
//
// - An attempt is counted atomically BEFORE the password is verified (one Lua script), so a burst of
//   concurrent tries cannot all pass a check made before any of them failed: of 60 wrong logins
//   sent at once for one name from one address, `attempts` are verified and the rest get 429.
// - The lockout is keyed on (address, name), not on the name alone: guesses from one address never
//   lock the name's owner out from elsewhere. After `attempts` tries the pair waits `baseLockoutMs`,
//   and each later try doubles the wait up to `maxLockoutMs` (about 4 tries an hour at the cap).
// - Across names, one address may make `addressAttempts` tries per window (spraying many names).
// - A success clears the pair (the owner proved the password) and gives its try back to the
//   address; a failure needs no second round trip: it was counted when it began.
// Both keys of an attempt carry the address as hash tag, so the script runs on a Redis Cluster.
import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';

export interface LoginLimiterOptions {
  redis: Redis | Cluster;
  /** The deployment's key prefix (REDIS_PREFIX). */
  prefix: string;
  /** Which sign-in this is ('console', 'account', ...): separate counts per scope. */
  scope: string;
  /** Tries per (address, name) before the backoff starts. Default 10. */
  attempts?: number;
  /** Tries per address over all names in `windowMs`. Default 30. */
  addressAttempts?: number;
  /** How long the counts are kept after the last try (or the end of a lockout). Default 15 min. */
  windowMs?: number;
  /** First lockout of a pair, doubled on every later try. Default 1 min. */
  baseLockoutMs?: number;
  /** Longest lockout. Default 15 min. */
  maxLockoutMs?: number;
}

/** A verdict on one sign-in attempt. */
export type LoginAdmission = { allowed: true; attempt: LoginAttempt } | { allowed: false; retryAfterS: number };

export interface LoginAttempt {
  /** The password was right: the pair's count is cleared and the address gets its try back. */
  succeeded(): Promise<void>;
}

export interface LoginLimiter {
  /** Counts a try of `name` from `address` and says whether its password may be verified now. */
  begin(address: string, name: string): Promise<LoginAdmission>;
}

// KEYS: pair (hash: tries, until), address counter. ARGV: attempts, addressAttempts, windowMs,
// baseLockoutMs, maxLockoutMs. Returns {1, tries} when allowed, {0, ms to wait} when not.
const BEGIN = `
local t = redis.call("TIME")
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local attempts, addressAttempts, windowMs = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local base, cap = tonumber(ARGV[4]), tonumber(ARGV[5])
local untilMs = tonumber(redis.call("HGET", KEYS[1], "until") or "0")
if untilMs > now then return {0, untilMs - now} end
local used = tonumber(redis.call("GET", KEYS[2]) or "0")
if used >= addressAttempts then return {0, math.max(redis.call("PTTL", KEYS[2]), 1000)} end
local tries = redis.call("HINCRBY", KEYS[1], "tries", 1)
local keep = windowMs
if tries >= attempts then
  local lock = math.min(cap, base * 2 ^ (tries - attempts))
  redis.call("HSET", KEYS[1], "until", string.format("%.0f", now + lock))
  keep = lock + windowMs
end
redis.call("PEXPIRE", KEYS[1], string.format("%.0f", keep))
if redis.call("INCR", KEYS[2]) == 1 then redis.call("PEXPIRE", KEYS[2], windowMs) end
return {1, tries}`;

// KEYS: pair, address counter. The pair is forgotten; the address counter gives one try back.
const SUCCEEDED = `
redis.call("DEL", KEYS[1])
if tonumber(redis.call("GET", KEYS[2]) or "0") > 0 then redis.call("DECR", KEYS[2]) end
return 1`;

const digest = (s: string) => createHash('sha256').update(s).digest('base64url').slice(0, 22);

/** The Redis keys of one (address, name): both tagged with the scope and address (one hash slot). */
export function loginLimiterKeys(prefix: string, scope: string, address: string, name: string): [pair: string, address: string] {
  // The name is hashed: it is whatever the form sent (any length, any character).
  const tag = `{${scope}:${digest(address)}}`;
  return [`${prefix}:login:${tag}:name:${digest(name.trim().toLowerCase())}`, `${prefix}:login:${tag}:address`];
}

export function createLoginLimiter(opts: LoginLimiterOptions): LoginLimiter {
  const attempts = opts.attempts ?? 10;
  const args = [attempts, opts.addressAttempts ?? 30, opts.windowMs ?? 15 * 60_000, opts.baseLockoutMs ?? 60_000, opts.maxLockoutMs ?? 15 * 60_000];
  return {
    async begin(address, name) {
      const keys = loginLimiterKeys(opts.prefix, opts.scope, address, name);
      const [ok, n] = (await opts.redis.eval(BEGIN, 2, ...keys, ...args)) as [number, number];
      if (ok !== 1) return { allowed: false, retryAfterS: Math.max(1, Math.ceil(n / 1000)) };
      return {
        allowed: true,
        attempt: {
          succeeded: async () => {
            await opts.redis.eval(SUCCEEDED, 2, ...keys);
          },
        },
      };
    },
  };
}
