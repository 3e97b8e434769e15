// The login limiter on real Redis: tries counted before verification, a lockout per (address, name)
// that doubles, a per-address cap over names, and a success that clears its pair.
import { randomBytes } from 'node:crypto';
import IORedis from 'ioredis';
import { createLoginLimiter, LoginAdmission, loginLimiterKeys } from '../src';

const redis = new IORedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const prefix = `test:login:${randomBytes(4).toString('hex')}`;
let n = 0;
const fresh = (o: { attempts?: number; addressAttempts?: number } = {}) => {
  const p = `${prefix}:${++n}`;
  return { p, limiter: createLoginLimiter({ redis, prefix: p, scope: 'console', attempts: 3, addressAttempts: 100, baseLockoutMs: 300, maxLockoutMs: 1_000, ...o }) };
};
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});
const allowed = (a: LoginAdmission) => a.allowed;
/** Waits (polling, no fixed sleep) until the pair admits a try again; answers that admission. */
async function whenAllowed(begin: () => Promise<LoginAdmission>): Promise<LoginAdmission> {
  for (let i = 0; i < 400; i++) {
    const a = await begin();
    if (a.allowed) return a;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('never allowed');
}
const lockLeftMs = async (p: string, address: string, name: string) => {
  const until = Number(await redis.hget(loginLimiterKeys(p, 'console', address, name)[0], 'until'));
  const [s, us] = await redis.time();
  return until - (Number(s) * 1000 + Math.floor(Number(us) / 1000));
};

it('concurrent tries are counted before any is verified: exactly `attempts` are admitted', async () => {
  const { limiter } = fresh();
  const all = await Promise.all(Array.from({ length: 20 }, () => limiter.begin('10.0.0.1', 'alice')));
  expect(all.filter(allowed)).toHaveLength(3);
  for (const a of all.filter((x) => !x.allowed)) expect(a).toEqual({ allowed: false, retryAfterS: 1 });
});

it('the lockout is per (address, name) and doubles with each later try, up to the cap', async () => {
  const { p, limiter } = fresh();
  for (let i = 0; i < 3; i++) expect((await limiter.begin('10.0.0.1', 'alice')).allowed).toBe(true);
  expect((await limiter.begin('10.0.0.1', 'alice')).allowed).toBe(false);
  // Other addresses and other names are not affected.
  expect((await limiter.begin('10.0.0.2', 'alice')).allowed).toBe(true);
  expect((await limiter.begin('10.0.0.1', 'bob')).allowed).toBe(true);
  expect(await lockLeftMs(p, '10.0.0.1', 'alice')).toBeLessThanOrEqual(300);
  await whenAllowed(() => limiter.begin('10.0.0.1', 'alice'));
  expect(await lockLeftMs(p, '10.0.0.1', 'alice')).toBeGreaterThan(300); // 600 ms now
  await whenAllowed(() => limiter.begin('10.0.0.1', 'alice'));
  const third = await lockLeftMs(p, '10.0.0.1', 'alice');
  expect(third).toBeGreaterThan(600); // capped at 1,000 ms
  expect(third).toBeLessThanOrEqual(1_000);
});

it('a success clears its pair; the address cap counts tries over every name', async () => {
  const { limiter } = fresh({ addressAttempts: 5 });
  const a = await limiter.begin('10.0.0.9', 'carol');
  const b = await limiter.begin('10.0.0.9', 'carol');
  if (!a.allowed || !b.allowed) throw new Error('expected admissions');
  await b.attempt.succeeded();
  // Cleared: carol may try `attempts` times again; the success gave its try back to the address.
  for (let i = 0; i < 3; i++) expect((await limiter.begin('10.0.0.9', 'carol')).allowed).toBe(true);
  // Address used: 1 (a) + 3 = 4 of 5; one more name, then the address is refused for any name.
  expect((await limiter.begin('10.0.0.9', 'dave')).allowed).toBe(true);
  const refused = await limiter.begin('10.0.0.9', 'erin');
  expect(refused.allowed).toBe(false);
  expect((await limiter.begin('10.0.0.10', 'erin')).allowed).toBe(true);
});
