// Two gateway instances on the same Postgres schema and Redis prefix (each with its own deps: its
// own poll cache copies, rate-limit reservations, auth cache and pub/sub subscriber) never answer
// differently once an event has reached both, and never admit more than an account's limit
// together (docs/operations.md, "Poll cache and rate limits across gateways").
import request from 'supertest';
import IORedis from 'ioredis';
import { decodePollEntry, encodePollEntry, pollCacheKey } from '@mediagen/queue';
import { startHarness, Harness } from './harness';
import { closeDeps, createDeps, GatewayDeps } from '../src/deps';
import { gatewayListener, GatewayListener } from '../src/server';
import { aheadFor, batchFor } from '../src/middleware/rate-tokens';
import { waitFor } from '../../../test/e2e/support/wait';

let h: Harness;
let b: { app: GatewayListener; deps: GatewayDeps };
let redis: IORedis;
beforeAll(async () => {
  h = await startHarness('cross-instance', { INSTANT_WAIT_MS: '0' });
  const deps = await createDeps(h.deps.config);
  b = { app: gatewayListener(deps), deps };
  redis = new IORedis(h.deps.config.REDIS_URL);
  expect(await h.deps.events.subscribed).toBe(true);
  expect(await b.deps.events.subscribed).toBe(true);
});
afterAll(async () => {
  redis.disconnect();
  await closeDeps(b.deps);
  await h.close();
});

const video = { model: 'video-b-2.0', prompt: 'a red fox in the snow', duration: 4 };
const A = () => h.app;
const cacheKey = (taskId: string) => pollCacheKey(h.deps.config.REDIS_PREFIX, taskId);
const poll = async (app: GatewayListener, taskId: string, auth: Record<string, string>) => {
  const res = await request(app).get(`/api/video/tasks/${taskId}`).set(auth);
  expect(res.status).toBe(200);
  return res.body as Record<string, unknown>;
};
/** Resolves once both gateways' subscribers have heard the task settle. */
const settledOnBoth = (taskId: string) => Promise.all([h.deps, b.deps].map((d) => d.events.waitForSettle(taskId, 10_000).done));

describe('poll cache across gateways', () => {
  it("a gateway's copy of the shared entry lives no longer than the shared entry itself", async () => {
    const a = await h.newAccount();
    const id = (await request(A()).post('/api/video/generate').set(a.auth).send(video).expect(200)).body.taskId as string;
    // The shared entry as another gateway stored it, with little of its life left.
    await redis.set(cacheKey(id), encodePollEntry({ accountId: a.id, type: 'video', body: { status: 'pending', type: 'video' } }), 'PX', 300);
    expect(await poll(b.app, id, a.auth)).toEqual({ status: 'pending', type: 'video' });
    await h.deps.db.task.update({ where: { id }, data: { status: 'processing', progress: 40 } });
    await waitFor(async () => (await redis.exists(cacheKey(id))) === 0, 5_000, 'the shared entry to expire');
    // A copy kept for POLL_CACHE_MS (5 s) from when it was made would still answer pending here.
    expect(await poll(b.app, id, a.auth)).toEqual({ status: 'processing', progress: 40, type: 'video' });
    expect(await poll(A(), id, a.auth)).toEqual({ status: 'processing', progress: 40, type: 'video' });
  });

  it('a task event drops both copies: once it reached both gateways, both answer the settled state', async () => {
    const a = await h.newAccount();
    const id = (await request(A()).post('/api/video/generate').set(a.auth).send(video).expect(200)).body.taskId as string;
    expect(await poll(A(), id, a.auth)).toEqual({ status: 'pending', type: 'video' });
    expect(await poll(b.app, id, a.auth)).toEqual({ status: 'pending', type: 'video' });
    const settled = settledOnBoth(id);
    await request(A()).post(`/api/video/tasks/${id}/cancel`).set(a.auth).expect(200);
    await settled;
    const onA = await poll(A(), id, a.auth);
    expect(onA).toMatchObject({ status: 'failed', errorCode: 'cancelled' });
    expect(await poll(b.app, id, a.auth)).toEqual(onA);
  });

  it('a shared entry stored from a read that began before the settlement is not answered after the event', async () => {
    const a = await h.newAccount();
    const id = (await request(A()).post('/api/video/generate').set(a.auth).send(video).expect(200)).body.taskId as string;
    expect(await poll(b.app, id, a.auth)).toEqual({ status: 'pending', type: 'video' });
    const settled = settledOnBoth(id);
    await request(A()).post(`/api/video/tasks/${id}/cancel`).set(a.auth).expect(200);
    await settled;
    // A slow gateway read the task before the cancel committed and fills the entry only now: its
    // fill (SET NX) finds the settled entry the settlement stored, and adopts it.
    const stale = encodePollEntry({ accountId: a.id, type: 'video', body: { status: 'pending', type: 'video' } });
    expect(await redis.set(cacheKey(id), stale, 'PX', 60_000, 'NX')).toBeNull();
    expect(decodePollEntry((await redis.get(cacheKey(id)))!)?.body.status).toBe('failed');
    // Stored over it anyway (an older gateway's plain SET): still never answered after the event.
    await redis.set(cacheKey(id), stale, 'PX', 60_000);
    expect(await poll(b.app, id, a.auth)).toMatchObject({ status: 'failed', errorCode: 'cancelled' });
    expect(await poll(A(), id, a.auth)).toMatchObject({ status: 'failed', errorCode: 'cancelled' });
  });

  it("the event's settled entry is answered from memory: the poll after the event reads nothing", async () => {
    const a = await h.newAccount();
    const id = (await request(A()).post('/api/video/generate').set(a.auth).send(video).expect(200)).body.taskId as string;
    expect(await poll(b.app, id, a.auth)).toEqual({ status: 'pending', type: 'video' });
    // An event whose entry Postgres and the shared entry do not have (the row stays pending, the
    // shared entry is gone): a gateway that answered from either would say pending.
    await redis.del(cacheKey(id));
    const settled = settledOnBoth(id);
    const body = { status: 'completed', resultUrls: ['https://cdn.example/r/0.mp4'], type: 'video' };
    await redis.publish(h.deps.events.taskChannel, JSON.stringify({ taskId: id, status: 'completed', entry: { a: a.id, t: 'video', b: body } }));
    await settled;
    expect(await poll(b.app, id, a.auth)).toEqual(body);
    expect(await poll(A(), id, a.auth)).toEqual(body);
    // Still the owner's alone, and of its type.
    const other = await h.newAccount();
    await request(b.app).get(`/api/video/tasks/${id}`).set(other.auth).expect(404);
    await request(b.app).get(`/api/image/tasks/${id}`).set(a.auth).expect(404);
    // An event without an entry (an older worker) still drops the copies: the next poll reads Postgres.
    const again = settledOnBoth(id);
    await redis.publish(h.deps.events.taskChannel, JSON.stringify({ taskId: id, status: 'completed' }));
    await again;
    expect(await poll(b.app, id, a.auth)).toEqual({ status: 'pending', type: 'video' });
  });

  it("another account's poll is 404 on both gateways, from the cache too", async () => {
    const a = await h.newAccount();
    const other = await h.newAccount();
    const id = (await request(A()).post('/api/video/generate').set(a.auth).send(video).expect(200)).body.taskId as string;
    await poll(A(), id, a.auth);
    await poll(b.app, id, a.auth);
    await request(A()).get(`/api/video/tasks/${id}`).set(other.auth).expect(404);
    await request(b.app).get(`/api/video/tasks/${id}`).set(other.auth).expect(404);
    await request(b.app).get(`/api/image/tasks/${id}`).set(a.auth).expect(404);
  });
});

describe('request-rate limit across gateways', () => {
  // Polls of an id that is not ours are refused before any look-up: cheap requests to count.
  const hit = (app: GatewayListener, auth: Record<string, string>) => request(app).get('/api/image/tasks/not.an.id').set(auth);

  it('two gateways together admit at most the limit, and at least the limit minus the documented margin', async () => {
    const limit = 1000;
    const a = await h.newAccount({ rateLimitPerMinute: limit });
    const statuses: number[] = [];
    for (let round = 0; round < 30; round++) {
      const res = await Promise.all(Array.from({ length: 40 }, (_, i) => hit(i % 2 ? b.app : A(), a.auth)));
      statuses.push(...res.map((r) => r.status));
    }
    const admitted = statuses.filter((s) => s === 404).length;
    expect(statuses.filter((s) => s !== 404 && s !== 429)).toEqual([]);
    expect(admitted).toBeLessThanOrEqual(limit);
    // Margin: what one gateway reserved and had not spent when the other refused (batch - 1).
    expect(admitted).toBeGreaterThanOrEqual(limit - (batchFor(limit) - 1));
  });

  it('a gateway reserves a batch, then the rest of a batch ahead: the shared window moves by those, not per request', async () => {
    const limit = 1000;
    const batch = batchFor(limit);
    const { n } = aheadFor(limit);
    const a = await h.newAccount({ rateLimitPerMinute: limit });
    const counter = `${h.deps.config.REDIS_PREFIX}:rl:${a.id}`;
    for (let i = 1; i <= 3 * batch; i++) {
      const res = await hit(A(), a.auth).expect(404);
      expect(/r=(\d+);/.exec(res.headers['ratelimit'])![1]).toBe(String(limit - i));
      const reserved = Number(await redis.get(counter));
      // Every admitted request was reserved, and never more than batch - 1 are held unspent.
      expect(reserved).toBeGreaterThanOrEqual(i);
      expect(reserved - i).toBeLessThanOrEqual(batch - 1);
      expect((reserved - batch) % n).toBe(0);
    }
  });

  it('with a small limit every request is counted in the shared window, exactly as before', async () => {
    const a = await h.newAccount({ rateLimitPerMinute: 5 });
    const res = [];
    for (let i = 0; i < 7; i++) res.push(await hit(i % 2 ? b.app : A(), a.auth));
    expect(res.map((r) => r.status)).toEqual([404, 404, 404, 404, 404, 429, 429]);
    expect(res.map((r) => /r=(\d+)/.exec(r.headers['ratelimit'])![1])).toEqual(['4', '3', '2', '1', '0', '0', '0']);
  });
});

describe('API key revocation across gateways', () => {
  it('a revoked key stops working on both gateways once the revocation reached them', async () => {
    const a = await h.newAccount();
    await request(A()).get('/api/balance').set(a.auth).expect(200);
    await request(b.app).get('/api/balance').set(a.auth).expect(200); // both have it cached now
    const keys = await request(A()).get(`/admin/accounts/${a.id}/api-keys`).set(h.admin()).expect(200);
    const keyId = keys.body.keys[0].id as string;
    const heard = Promise.all([h.deps, b.deps].map((d) => new Promise<void>((r) => d.events.onKeyRevoked(() => r()))));
    await request(A()).delete(`/admin/api-keys/${keyId}`).set(h.admin()).expect(204);
    await heard;
    await request(A()).get('/api/balance').set(a.auth).expect(401);
    await request(b.app).get('/api/balance').set(a.auth).expect(401);
  });
});
