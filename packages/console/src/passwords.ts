// Passwords (console operators, and any other password sign-in of the service): scrypt from
// node:crypto (memory-hard, no native addon to build), stored as `scrypt$N$r$p$salt$hash` so the
// cost can be raised later without breaking stored hashes.
//
// Every hash and verify of the process goes through one gate: at most HASH_CONCURRENCY at once,
// HASH_QUEUE more waiting, and beyond that PasswordHashingBusy at once (the caller answers 429). An
// async scrypt runs on libuv's thread pool (4 threads), the same pool that reads files: unbounded,
// a burst of sign-ins filled it and a /files download waited seconds behind 60 hashes. The gate is
// per process because the pool is.
import { randomBytes, scrypt as scryptCb, timingSafeEqual, ScryptOptions } from 'node:crypto';
import { availableParallelism } from 'node:os';

const N = 16384;
const R = 8;
const P = 1;
const KEYLEN = 32;

/**
 * Hashes running at once per process: at most half of libuv's default pool of 4 (the rest stays for
 * file reads), and one core fewer than the machine has (a hash keeps a core busy for its whole run;
 * on 2 cores, 2 at once left the event loop waiting: /files p50 375 ms during a burst, 10 ms with 1).
 */
export const HASH_CONCURRENCY = Math.max(1, Math.min(2, availableParallelism() - 1));
/** Hashes waiting for a turn (under a second of work) before new ones are refused. */
export const HASH_QUEUE = 16;

/** The process is hashing as many passwords as it will: answer 429 with Retry-After and try later. */
export class PasswordHashingBusy extends Error {
  readonly retryAfterS = 1;
  constructor() {
    super('Too many sign-ins are being checked right now; try again in a second.');
  }
}

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** false for a wrong password or a stored value that is not one of our hashes. */
  verify(password: string, stored: string): Promise<boolean>;
  /** Hashes running and waiting now. */
  load(): { running: number; waiting: number };
}

function scrypt(password: string, salt: Buffer, keylen: number, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scryptCb(password, salt, keylen, opts, (err, key) => (err ? reject(err) : resolve(key))));
}

/**
 * A hasher with its own gate. A small semaphore rather than p-limit: p-limit 4+ is ESM-only (our
 * tests load CommonJS), and neither version sheds when its queue is full, which is the point here.
 */
export function createPasswordHasher(opts: { concurrency?: number; queue?: number } = {}): PasswordHasher {
  const concurrency = opts.concurrency ?? HASH_CONCURRENCY;
  const maxWaiting = opts.queue ?? HASH_QUEUE;
  let running = 0;
  const waiting: (() => void)[] = [];

  const gated = async <T>(work: () => Promise<T>): Promise<T> => {
    if (running >= concurrency) {
      if (waiting.length >= maxWaiting) throw new PasswordHashingBusy();
      await new Promise<void>((resolve) => waiting.push(resolve));
    } else running++;
    try {
      return await work();
    } finally {
      // The slot passes straight to the next waiter (running stays the same), or is freed.
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };

  return {
    hash: (password) =>
      gated(async () => {
        const salt = randomBytes(16);
        const hash = await scrypt(password, salt, KEYLEN, { N, r: R, p: P });
        return ['scrypt', N, R, P, salt.toString('base64'), hash.toString('base64')].join('$');
      }),
    verify: (password, stored) => {
      const [alg, n, r, p, salt, hash] = stored.split('$');
      if (alg !== 'scrypt' || !salt || !hash) return Promise.resolve(false);
      return gated(async () => {
        const expected = Buffer.from(hash, 'base64');
        const got = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, { N: Number(n), r: Number(r), p: Number(p) });
        return timingSafeEqual(got, expected);
      });
    },
    load: () => ({ running, waiting: waiting.length }),
  };
}

/** The process's hasher: every password hash and check of this process shares its gate. */
export const passwordHasher: PasswordHasher = createPasswordHasher();

/** Throws PasswordHashingBusy when the process's gate is full. */
export const hashPassword = (password: string): Promise<string> => passwordHasher.hash(password);

/** Throws PasswordHashingBusy when the process's gate is full. */
export const verifyPassword = (password: string, stored: string): Promise<boolean> => passwordHasher.verify(password, stored);

/** A stored hash of a random password: verifying against it costs what a real check costs (no timing oracle on names). */
export const DUMMY_HASH_PROMISE: Promise<string> = createPasswordHasher({ concurrency: 1, queue: 0 }).hash(randomBytes(16).toString('hex'));

/** 12+ characters: operators mint money. */
export const MIN_PASSWORD_LENGTH = 12;
