// Billing (402 when the balance does not cover the cost), the in-progress limit (20 open tasks) and the request-rate
// limit, including the concurrency races, over real Postgres and Redis.
import request from 'supertest';
import { startHarness, Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness('billing', { INSTANT_WAIT_MS: '0' });
});
afterAll(async () => {
  await h.assertLedgerInvariant();
  await h.close();
});

const image = { model: 'image-b-2.5', prompt: 'a lighthouse at dusk' }; // 0.03 USD
const ledger = async (id: string) => (await request(h.app).get(`/admin/accounts/${id}/ledger`).set(h.admin())).body.entries;

describe('charging', () => {
  it.each([
    [{ model: 'image-a-5.0', prompt: 'p' }, 'image', 20],
    [{ model: 'image-d-2.5-flash-image', prompt: 'p' }, 'image', 2],
    [{ model: 'video-a-h3', prompt: 'p', resolution: '480p', duration: 5 }, 'video', 4], // 5 x 0.007 = 0.035 -> 4 cents
    [{ model: 'video-b-2.0', prompt: 'p', duration: 4 }, 'video', 65], // 4 x 0.161 = 0.644 -> 65 cents
    [{ model: 'video-c-3.1', prompt: 'p' }, 'video', 10], // fast variant, 0.10 per video
  ])('%j on the %s endpoint costs %d cents: one charge, balance == ledger', async (body, endpoint, cents) => {
    const a = await h.newAccount({ balanceCents: 1000 });
    const res = await request(h.app).post(`/api/${endpoint}/generate`).set(a.auth).send(body);
    expect(res.status).toBe(200);
    expect((await request(h.app).get('/api/balance').set(a.auth)).body.balanceCents).toBe(1000 - cents);
    const entries = await ledger(a.id);
    expect(entries[0]).toMatchObject({ kind: 'charge', amountCents: -cents, taskId: res.body.taskId });
    expect(entries.reduce((s: number, e: { amountCents: number }) => s + e.amountCents, 0)).toBe(1000 - cents);
    const task = await h.deps.db.task.findUnique({ where: { id: res.body.taskId } });
    expect(task?.costCents).toBe(cents);
  });

  it('an account that cannot pay gets 402 with costCents, balanceCents, topUpUrl, and no task', async () => {
    const a = await h.newAccount({ balanceCents: 2 });
    const res = await request(h.app).post('/api/image/generate').set(a.auth).send(image);
    expect(res.status).toBe(402);
    expect(res.body).toEqual({ error: expect.any(String), code: 'insufficient_balance', costCents: 3, balanceCents: 2, topUpUrl: expect.stringMatching(/^https?:\/\//) });
    expect(await h.deps.db.task.count({ where: { accountId: a.id } })).toBe(0);
    expect(await h.deps.queue.getJobCounts()).toBeDefined();
    // After a top-up the same request goes through.
    await request(h.app).post(`/admin/accounts/${a.id}/credits`).set(h.admin()).send({ amountCents: 10, reason: 'test' }).expect(200);
    expect((await request(h.app).post('/api/image/generate').set(a.auth).send(image)).status).toBe(200);
    expect((await request(h.app).get('/api/balance').set(a.auth)).body.balanceCents).toBe(9);
  });

  it('concurrent submits never overdraw: 30 at 3 cents on 60 cents -> exactly 20 tasks', async () => {
    const a = await h.newAccount({ balanceCents: 60, maxConcurrentTasks: 100 });
    const res = await Promise.all(Array.from({ length: 30 }, () => request(h.app).post('/api/image/generate').set(a.auth).send(image)));
    expect(res.filter((r) => r.status === 200)).toHaveLength(20);
    expect(res.filter((r) => r.status === 402)).toHaveLength(10);
    expect(Number((await h.deps.db.account.findUnique({ where: { id: a.id } }))!.balanceCents)).toBe(0);
  });
});

describe('in-progress limit (20 open tasks)', () => {
  it('40 concurrent submits on a fresh account create exactly 20 tasks; the rest get 429 with RateLimit headers', async () => {
    const a = await h.newAccount({ balanceCents: 100_000 });
    const res = await Promise.all(Array.from({ length: 40 }, () => request(h.app).post('/api/image/generate').set(a.auth).send(image)));
    const ok = res.filter((r) => r.status === 200);
    const limited = res.filter((r) => r.status === 429);
    expect(ok).toHaveLength(20);
    expect(limited).toHaveLength(20);
    for (const r of limited) {
      expect(r.body.code).toBe('too_many_tasks');
      expect(r.headers['ratelimit-policy']).toBe('"in-progress"; q=20; qu="concurrent-requests"');
      expect(r.headers['ratelimit']).toMatch(/^"in-progress"; r=0; t=\d+$/);
      expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
    }
    expect(await h.deps.db.task.count({ where: { accountId: a.id } })).toBe(20);
    expect((await request(h.app).get(`/admin/accounts/${a.id}`).set(h.admin())).body.tasksInProgress).toBe(20);
    expect((await request(h.app).get('/api/balance').set(a.auth)).body.balanceCents).toBe(100_000 - 20 * 3);
  });

  it('a finished task frees a slot', async () => {
    const a = await h.newAccount({ balanceCents: 1000, maxConcurrentTasks: 1 });
    const first = await request(h.app).post('/api/image/generate').set(a.auth).send(image).expect(200);
    await request(h.app).post('/api/image/generate').set(a.auth).send(image).expect(429);
    // What the worker's settlement does on completion: terminal state and the counter, together.
    await h.deps.db.$transaction([
      h.deps.db.task.update({ where: { id: first.body.taskId }, data: { status: 'completed' } }),
      h.deps.db.account.update({ where: { id: a.id }, data: { tasksInProgress: { decrement: 1 } } }),
    ]);
    await request(h.app).post('/api/image/generate').set(a.auth).send(image).expect(200);
  });

  it('the limit is configurable per account', async () => {
    const a = await h.newAccount({ balanceCents: 1000, maxConcurrentTasks: 2 });
    const res = await Promise.all(Array.from({ length: 5 }, () => request(h.app).post('/api/image/generate').set(a.auth).send(image)));
    expect(res.filter((r) => r.status === 200)).toHaveLength(2);
    const limited = res.find((r) => r.status === 429)!;
    expect(limited.headers['ratelimit-policy']).toContain('q=2;');
  });
});

describe('request-rate limit', () => {
  it('answers 429 rate_limited with RateLimit, RateLimit-Policy and Retry-After past the per-key limit', async () => {
    const a = await h.newAccount({ rateLimitPerMinute: 5 });
    const res = [];
    for (let i = 0; i < 7; i++) res.push(await request(h.app).get('/api/balance').set(a.auth));
    expect(res.slice(0, 5).every((r) => r.status === 200)).toBe(true);
    expect(res[0].headers['ratelimit-policy']).toMatch(/q=5/);
    const limited = res[6];
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: expect.any(String), code: 'rate_limited' });
    expect(limited.headers['ratelimit']).toMatch(/r=0/);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Another account is not affected.
    const b = await h.newAccount();
    await request(h.app).get('/api/balance').set(b.auth).expect(200);
  });
});
