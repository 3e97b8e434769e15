// Endpoints, bodies, auth and polling of the public API, over real Postgres and Redis.
import request from 'supertest';
import { encodeTaskEvent } from '@mediagen/queue';
import { startHarness, Harness } from './harness';
import { eventually, waitFor } from '../../../test/e2e/support/wait';

let h: Harness;
beforeAll(async () => {
  // Windows wide enough that a loaded 2-core machine does not turn them into races.
  h = await startHarness('api', { POLL_CACHE_MS: '4000', INSTANT_WAIT_MS: '1500' });
});
afterAll(async () => h.close());

const video = { model: 'video-a-h3', prompt: 'a red fox running through snow', resolution: '480p', duration: 5 };
const image = { model: 'image-b-2.5', prompt: 'a lighthouse at dusk' };

describe('submit and poll', () => {
  it('video submit returns taskId == generationId and pending, and the task is queued with jobId = taskId', async () => {
    const a = await h.newAccount();
    const res = await request(h.app).post('/api/video/generate').set(a.auth).send(video);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ taskId: expect.any(String), generationId: res.body.taskId, status: 'pending', costCents: expect.any(Number) });
    const job = await h.deps.queue.getJob(res.body.taskId);
    expect(job?.data).toMatchObject({ taskId: res.body.taskId });
  });

  it('image submit of a model that does not answer at once returns pending', async () => {
    const a = await h.newAccount();
    const res = await request(h.app).post('/api/image/generate').set(a.auth).send(image);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('pending');
    expect(res.body.resultUrls).toBeUndefined();
  });

  it('an answers-at-once image model returns completed with resultUrls when the render settles in the window', async () => {
    const a = await h.newAccount();
    const { db, redis, events } = h.deps;
    // Play the worker: complete the task as soon as it appears, then publish the event.
    const timer = setInterval(async () => {
      const t = await db.task.findFirst({ where: { accountId: a.id, status: 'pending' } });
      if (!t) return;
      clearInterval(timer);
      await db.task.update({ where: { id: t.id }, data: { status: 'completed', resultUrls: ['https://cdn.example/r.png'] } });
      await redis.publish(events.taskChannel, encodeTaskEvent({ taskId: t.id, status: 'completed' }));
    }, 20);
    const res = await request(h.app).post('/api/image/generate').set(a.auth).send({ model: 'image-d-2.5-flash-image', prompt: 'quick sketch' });
    clearInterval(timer);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ taskId: res.body.taskId, generationId: res.body.taskId, status: 'completed', resultUrls: ['https://cdn.example/r.png'], costCents: 2 });
  });

  it("an answers-at-once submit answers from the settlement event's entry without reading the task back", async () => {
    const a = await h.newAccount();
    const { db, redis, events } = h.deps;
    const body = { status: 'failed', errorMessage: 'The provider could not render this image', errorCode: 'generation_failed', retryable: true, type: 'image' };
    // The event carries the settled entry; the row stays pending, so an answer read from Postgres would say pending.
    const timer = setInterval(async () => {
      const t = await db.task.findFirst({ where: { accountId: a.id, status: 'pending' } });
      if (!t) return;
      clearInterval(timer);
      await redis.publish(events.taskChannel, encodeTaskEvent({ taskId: t.id, status: 'failed', entry: { accountId: a.id, type: 'image', body: body as never } }));
    }, 20);
    const res = await request(h.app).post('/api/image/generate').set(a.auth).send({ model: 'image-d-2.5-flash-image', prompt: 'quick sketch' });
    clearInterval(timer);
    expect(res.status).toBe(200);
    const { status, errorCode, errorMessage, retryable } = body;
    expect(res.body).toEqual({ taskId: res.body.taskId, generationId: res.body.taskId, status, errorCode, errorMessage, retryable, costCents: 2 });
  });

  it('an answers-at-once model answers pending when the render does not finish in the window', async () => {
    const a = await h.newAccount();
    const res = await request(h.app).post('/api/image/generate').set(a.auth).send({ model: 'image-d-2.5-flash-image', prompt: 'slow one' });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('pending');
  });

  it('poll bodies per status carry the documented fields, field for field', async () => {
    const a = await h.newAccount();
    const mk = async () => (await request(h.app).post('/api/video/generate').set(a.auth).send(video)).body.taskId as string;
    const [p, pr, c, f] = [await mk(), await mk(), await mk(), await mk()];
    await h.deps.db.task.update({ where: { id: pr }, data: { status: 'processing', progress: 42 } });
    await h.deps.db.task.update({ where: { id: c }, data: { status: 'completed', resultUrls: ['https://x/a.mp4'] } });
    await h.deps.db.task.update({ where: { id: f }, data: { status: 'failed', errorCode: 'generation_failed', errorMessage: 'The provider could not render this video', retryable: true } });
    const poll = async (id: string) => (await request(h.app).get(`/api/video/tasks/${id}`).set(a.auth).expect(200)).body;
    expect(await poll(p)).toEqual({ status: 'pending', type: 'video' });
    expect(await poll(pr)).toEqual({ status: 'processing', progress: 42, type: 'video' });
    expect(await poll(c)).toEqual({ status: 'completed', resultUrls: ['https://x/a.mp4'], type: 'video' });
    expect(await poll(f)).toEqual({ status: 'failed', errorMessage: 'The provider could not render this video', errorCode: 'generation_failed', retryable: true, type: 'video' });
  });

  it('image tasks poll at the image endpoint; the video endpoint, unknown ids and other accounts get 404', async () => {
    const a = await h.newAccount();
    const b = await h.newAccount();
    const id = (await request(h.app).post('/api/image/generate').set(a.auth).send(image)).body.taskId;
    expect((await request(h.app).get(`/api/image/tasks/${id}`).set(a.auth)).body).toEqual({ status: 'pending', type: 'image' });
    for (const [path, auth] of [
      [`/api/video/tasks/${id}`, a.auth],
      [`/api/image/tasks/${id}`, b.auth],
      ['/api/image/tasks/does-not-exist', a.auth],
      [`/api/image/tasks/${'x'.repeat(500)}`, a.auth],
    ] as const) {
      const res = await request(h.app).get(path).set(auth);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: expect.any(String), code: 'not_found' });
    }
  });

  it('repeated polls within POLL_CACHE_MS return the cached status, shared by a second gateway instance', async () => {
    const a = await h.newAccount();
    const id = (await request(h.app).post('/api/video/generate').set(a.auth).send(video)).body.taskId;
    expect((await request(h.app).get(`/api/video/tasks/${id}`).set(a.auth)).body.status).toBe('pending');
    await h.deps.db.task.update({ where: { id }, data: { status: 'processing', progress: 10 } });
    const { gatewayListener } = await import('../src/server');
    const { buildGatewayParts } = await import('../src/deps');
    // A second gateway's own state (its poll cache copy included) over the same connections.
    const parts = buildGatewayParts(h.deps);
    const second = gatewayListener({ ...h.deps, ...parts });
    expect((await request(second).get(`/api/video/tasks/${id}`).set(a.auth)).body.status).toBe('pending');
    // Once the 4 s entry expires, both instances answer the new status (4 s: a loaded machine must still
    // reach the second gateway's first poll within it).
    const fresh = await eventually('the cached poll to expire', async () => {
      const body = (await request(second).get(`/api/video/tasks/${id}`).set(a.auth)).body;
      return body.status === 'processing' ? body : null;
    }, 10_000);
    expect(fresh).toEqual({ status: 'processing', progress: 10, type: 'video' });
    parts.keyUsage.stop();
    parts.taskStreams.closeAll();
  });

  it('a cached poll is still 404 for another account', async () => {
    const a = await h.newAccount();
    const b = await h.newAccount();
    const id = (await request(h.app).post('/api/video/generate').set(a.auth).send(video)).body.taskId;
    await request(h.app).get(`/api/video/tasks/${id}`).set(a.auth).expect(200);
    await request(h.app).get(`/api/video/tasks/${id}`).set(b.auth).expect(404);
  });
});

describe('balance', () => {
  it('returns balanceCents and topUpUrl for the calling key', async () => {
    const a = await h.newAccount({ balanceCents: 1234 });
    const res = await request(h.app).get('/api/balance').set(a.auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ balanceCents: 1234, topUpUrl: expect.stringMatching(/^https?:\/\//) });
  });
});

describe('authentication', () => {
  const cases: [string, Record<string, string>][] = [
    ['missing header', {}],
    ['not bearer', { Authorization: 'Basic dXNlcjpwYXNz' }],
    ['bearer without key', { Authorization: 'Bearer ' }],
    ['unknown key', { Authorization: 'Bearer mg_thisKeyDoesNotExist0000000000000000000000' }],
    ['junk characters', { Authorization: 'Bearer <script>' }],
  ];
  it.each(cases)('%s -> 401 with the error body', async (_name, headers) => {
    for (const [method, path] of [['get', '/api/balance'], ['post', '/api/video/generate'], ['get', '/api/video/tasks/x']] as const) {
      const res = await request(h.app)[method](path).set(headers).send(method === 'post' ? video : undefined);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: expect.any(String), code: 'unauthorized' });
    }
  });

  it('a revoked key stops working at once; the other keys of the account keep working', async () => {
    const a = await h.newAccount();
    const second = await request(h.app).post(`/admin/accounts/${a.id}/api-keys`).set(h.admin()).expect(201);
    await request(h.app).get('/api/balance').set(a.auth).expect(200);
    const keys = await request(h.app).get(`/admin/accounts/${a.id}/api-keys`).set(h.admin());
    const first = keys.body.keys.find((k: { id: string }) => k.id !== second.body.id);
    await request(h.app).delete(`/admin/api-keys/${first.id}`).set(h.admin()).expect(204);
    // The revocation reaches the key cache through pub/sub: at once, but not synchronously.
    await waitFor(async () => (await request(h.app).get('/api/balance').set(a.auth)).status === 401, 5_000, 'the revoked key refused');
    await request(h.app).get('/api/balance').set({ Authorization: `Bearer ${second.body.key}` }).expect(200);
  });

  it('keys are stored hashed, never in clear', async () => {
    const a = await h.newAccount();
    const rows = await h.deps.db.apiKey.findMany({ where: { accountId: a.id } });
    expect(rows[0].keyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(rows)).not.toContain(a.key);
  });
});

describe('request errors', () => {
  it('invalid JSON -> 400 invalid_json; wrong content type -> 400; unknown route -> 404', async () => {
    const a = await h.newAccount();
    const bad = await request(h.app).post('/api/video/generate').set(a.auth).set('Content-Type', 'application/json').send('{"model": ');
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('invalid_json');
    const text = await request(h.app).post('/api/video/generate').set(a.auth).set('Content-Type', 'text/plain').send('hello');
    expect(text.status).toBe(400);
    expect(text.body.code).toBe('invalid_json');
    const nf = await request(h.app).get('/api/nothing').set(a.auth);
    expect(nf.status).toBe(404);
    expect(nf.body.code).toBe('not_found');
  });

  it('a body over 40 MB -> 413 payload_too_large, and nothing is charged', async () => {
    const a = await h.newAccount({ balanceCents: 500 });
    const huge = JSON.stringify({ ...image, prompt: 'x'.repeat(41 * 1024 * 1024) });
    const res = await request(h.app).post('/api/image/generate').set(a.auth).set('Content-Type', 'application/json').send(huge);
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('payload_too_large');
    expect((await request(h.app).get('/api/balance').set(a.auth)).body.balanceCents).toBe(500);
  });

  it('submits are refused with 503 and nothing is charged while Redis is unreachable', async () => {
    const a = await h.newAccount({ balanceCents: 500 });
    const { redis } = h.deps;
    redis.disconnect();
    try {
      const res = await request(h.app).post('/api/image/generate').set(a.auth).send(image);
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('service_unavailable');
      expect(await h.deps.db.task.count({ where: { accountId: a.id } })).toBe(0);
      expect(Number((await h.deps.db.account.findUnique({ where: { id: a.id } }))!.balanceCents)).toBe(500);
    } finally {
      await redis.connect();
    }
  });
});

describe('top-up page', () => {
  it('the default topUpUrl is the account holder\'s top-up page (sign-in first), and the old address leads there', async () => {
    const a = await h.newAccount();
    const url = new URL((await request(h.app).get('/api/balance').set(a.auth)).body.topUpUrl);
    expect(url.pathname).toBe('/account/top-up');
    const res = await request(h.app).get(url.pathname);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/account/signin?next=%2Faccount%2Ftop-up');
    const old = await request(h.app).get('/billing/top-up');
    expect(old.status).toBe(200);
    expect(old.text).toContain('/account/top-up');
  });
});
