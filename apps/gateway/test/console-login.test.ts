// The console's sign-in under a burst, on the real Postgres and Redis:
// - 60 concurrent wrong logins for one operator from one address: each try is counted before its
//   password is checked, so 10 are checked and the rest get 429; the right password sent in the
//   burst gets no session;
// - the lockout is keyed on (address, name): the owner signs in from another address at once;
// - password checks of the process pass one gate: at most 2 scrypt calls run at once, and a burst
//   over many names and addresses is partly shed with 429 instead of filling libuv's thread pool.
// - sign-ins and checked failures are audited, with the address; tries refused with 429 are not.
// Addresses are set with X-Forwarded-For behind TRUST_PROXY=loopback.
import crypto from 'node:crypto';
import request from 'supertest';
import { listAuditEvents, newId, upsertOperator } from '@mediagen/db';
import { HASH_CONCURRENCY, hashPassword } from '@mediagen/console';
import { startHarness, Harness } from './harness';

jest.setTimeout(120_000);

const PASSWORD = 'the right password 42';
let h: Harness;
beforeAll(async () => {
  h = await startHarness('console_login', { TRUST_PROXY: 'loopback' });
  await upsertOperator(h.deps.db, { id: newId('op'), name: 'alice', role: 'admin', passwordHash: await hashPassword(PASSWORD) });
});
afterAll(() => h.close());

/** Counts scrypt calls and the most running at once (called, callback not yet run). */
function watchScrypt() {
  const real = crypto.scrypt;
  let running = 0;
  const stats = { calls: 0, maxRunning: 0 };
  const spy = jest.spyOn(crypto, 'scrypt').mockImplementation(((...args: unknown[]) => {
    stats.calls++;
    stats.maxRunning = Math.max(stats.maxRunning, ++running);
    const cb = args.pop() as (err: Error | null, key: Buffer) => void;
    return (real as (...a: unknown[]) => void)(...args, (err: Error | null, key: Buffer) => {
      running--;
      cb(err, key);
    });
  }) as never);
  return { stats, restore: () => spy.mockRestore() };
}

async function loginForm(): Promise<{ cookie: string; csrf: string }> {
  const form = await request(h.app).get('/console/login');
  const cookie = String(form.headers['set-cookie'][0]).split(';')[0];
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)![1];
  return { cookie, csrf };
}

const login = (f: { cookie: string; csrf: string }, name: string, password: string, address: string) =>
  request(h.app)
    .post('/console/login')
    .set('Cookie', f.cookie)
    .set('X-Forwarded-For', address)
    .type('form')
    .send({ _csrf: f.csrf, name, password, next: '/console/accounts' });

it('a burst of 60 wrong logins for one name from one address checks 10; the right password in the burst gets no session', async () => {
  const f = await loginForm();
  const scrypt = watchScrypt();
  try {
    const burst = await Promise.all(Array.from({ length: 60 }, (_, i) => login(f, 'alice', i === 44 ? PASSWORD : `guess ${i}`, '198.51.100.1')));
    const statuses = burst.map((r) => r.status);
    expect(scrypt.stats.calls).toBeLessThanOrEqual(10);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(50);
    expect(statuses.filter((s) => s === 303).length).toBe(statuses[44] === 303 ? 1 : 0);
    expect(statuses.every((s) => s === 401 || s === 429 || s === 303)).toBe(true);
    for (const r of burst.filter((x) => x.status === 429)) expect(r.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    // After the burst the pair waits: the right password from this address is refused for now...
    const again = await login(f, 'alice', PASSWORD, '198.51.100.1');
    expect(again.status).toBe(429);
    expect(String(again.headers['set-cookie'] ?? '')).not.toContain('mg_console=');
    // ... while the owner, from another address, signs in at once.
    const owner = await login(f, 'alice', PASSWORD, '192.0.2.10');
    expect(owner.status).toBe(303);
    expect(String(owner.headers['set-cookie'])).toMatch(/(^|,)mg_console=/);
  } finally {
    scrypt.restore();
  }
});

it('password checks share one gate per process: a burst over many names and addresses runs at most 2 at once and sheds the excess with 429', async () => {
  const f = await loginForm();
  const scrypt = watchScrypt();
  try {
    const burst = await Promise.all(Array.from({ length: 60 }, (_, i) => login(f, `user${i}`, 'wrong password', `203.0.113.${i + 1}`)));
    const statuses = burst.map((r) => r.status);
    expect(scrypt.stats.maxRunning).toBeLessThanOrEqual(HASH_CONCURRENCY);
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
    expect(statuses.filter((s) => s === 401).length).toBeGreaterThanOrEqual(HASH_CONCURRENCY);
    for (const r of burst.filter((x) => x.status === 429)) expect(r.headers['retry-after']).toBe('1');
  } finally {
    scrypt.restore();
  }
  // Nothing is left holding the gate: a sign-in after the burst is checked.
  expect((await login(f, 'alice', PASSWORD, '192.0.2.11')).status).toBe(303);
});

it('audits sign-ins and checked failures with the address; refused tries leave no row', async () => {
  const f = await loginForm();
  const failedBefore = (await listAuditEvents(h.deps.db, { action: 'operator.login_failed', limit: 500 })).events.length;
  expect((await login(f, 'alice', 'not it', '192.0.2.50')).status).toBe(401);
  expect((await login(f, 'nobody-here', 'my secret password', '192.0.2.50')).status).toBe(401);
  expect((await login(f, 'alice', PASSWORD, '192.0.2.50')).status).toBe(303);
  const failed = (await listAuditEvents(h.deps.db, { action: 'operator.login_failed', limit: 500 })).events;
  expect(failed.length - failedBefore).toBe(2);
  expect(failed[1]).toMatchObject({ actorType: 'operator', actorName: 'alice', targetType: 'operator', ip: '192.0.2.50', after: { reason: 'wrong_password' } });
  expect(failed[0]).toMatchObject({ actorName: null, targetId: null, ip: '192.0.2.50', after: { reason: 'unknown_name' } });
  expect(JSON.stringify(failed)).not.toContain('my secret password');
  expect(JSON.stringify(failed)).not.toContain('nobody-here');
  const logins = (await listAuditEvents(h.deps.db, { action: 'operator.login', limit: 500 })).events;
  expect(logins[0]).toMatchObject({ actorType: 'operator', actorName: 'alice', ip: '192.0.2.50' });
  // The first test's burst: 10 checked failures audited (and its sign-in from elsewhere), not 60 rows.
  expect(failed.filter((e) => e.ip === '198.51.100.1')).toHaveLength(10);
});
