// Admin API (docs/api.md), OpenAPI document and reference page, Bull Board.
import request from 'supertest';
import { startHarness, Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness('admin', { INSTANT_WAIT_MS: '0' });
});
afterAll(async () => {
  await h.assertLedgerInvariant();
  await h.close();
});

describe('admin API', () => {
  it('needs the admin token', async () => {
    for (const headers of [{}, { Authorization: 'Bearer wrong-token-wrong-token' }]) {
      const res = await request(h.app).post('/admin/accounts').set(headers).send({ name: 'x' });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('unauthorized');
    }
    await request(h.app).get('/admin/queues').expect(401);
    // An API key is not an admin token.
    const a = await h.newAccount();
    await request(h.app).get(`/admin/accounts/${a.id}`).set(a.auth).expect(401);
  });

  it('a top-up retried the moment its answer arrives is replayed, never 409, and credits once', async () => {
    // The answer used to be kept on 'close', after the client could already see it: an immediate
    // retry then raced into 409 idempotency_in_progress.
    const created = await request(h.app).post('/admin/accounts').set(h.admin()).send({ name: 'Retry' });
    const id = created.body.id;
    // Keeping the answer is made slow (as under load), so an answer sent before it was kept would
    // meet its retry while the record still says "running".
    await h.deps.db.$executeRawUnsafe(`CREATE FUNCTION slow_admin_keep() RETURNS trigger AS $$ BEGIN PERFORM pg_sleep(0.2); RETURN NEW; END $$ LANGUAGE plpgsql`);
    await h.deps.db.$executeRawUnsafe(`CREATE TRIGGER slow_admin_keep BEFORE UPDATE ON "AdminIdempotencyRecord" FOR EACH ROW EXECUTE FUNCTION slow_admin_keep()`);
    // A real listener and a keep-alive client, as a script's retry loop would use.
    const server = h.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const { port } = server.address() as import('node:net').AddressInfo;
    try {
      for (let i = 0; i < 3; i++) {
        const send = () =>
          fetch(`http://127.0.0.1:${port}/admin/accounts/${id}/credits`, {
            method: 'POST',
            headers: { ...h.admin(), 'Content-Type': 'application/json', 'Idempotency-Key': `topup-${i}` },
            body: JSON.stringify({ amountCents: 10 }),
          });
        const first = await send();
        const firstBody = await first.json();
        const again = await send();
        expect([first.status, again.status, again.headers.get('idempotent-replayed')]).toEqual([200, 200, 'true']);
        expect(await again.json()).toEqual(firstBody);
      }
    } finally {
      server.closeAllConnections();
      server.close();
      await h.deps.db.$executeRawUnsafe('DROP TRIGGER slow_admin_keep ON "AdminIdempotencyRecord"');
    }
    const view = await request(h.app).get(`/admin/accounts/${id}`).set(h.admin());
    expect(view.body.balanceCents).toBe(30);
  });

  it('creates accounts (initial balance is a ledger top-up), keys, credits, and shows them', async () => {
    const created = await request(h.app).post('/admin/accounts').set(h.admin()).send({ name: 'Acme', balanceCents: 500, maxConcurrentTasks: 5 });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(String), name: 'Acme', balanceCents: 500 });
    const id = created.body.id;
    const key = await request(h.app).post(`/admin/accounts/${id}/api-keys`).set(h.admin());
    expect(key.status).toBe(201);
    expect(key.body).toMatchObject({ id: expect.any(String), key: expect.stringMatching(/^mg_/) });
    const credit = await request(h.app).post(`/admin/accounts/${id}/credits`).set(h.admin()).send({ amountCents: 250, reason: 'invoice 7' });
    expect(credit.body).toEqual({ balanceCents: 750 });
    const view = await request(h.app).get(`/admin/accounts/${id}`).set(h.admin());
    expect(view.body).toMatchObject({ id, name: 'Acme', balanceCents: 750, tasksInProgress: 0, maxConcurrentTasks: 5 });
    const ledger = await request(h.app).get(`/admin/accounts/${id}/ledger`).set(h.admin());
    expect(ledger.body.entries.map((e: { kind: string; amountCents: number }) => [e.kind, e.amountCents])).toEqual([
      ['topup', 250],
      ['topup', 500],
    ]);
    expect(ledger.body.entries[0].reason).toBe('invoice 7');
  });

  it('negative credits are adjustments and cannot overdraw', async () => {
    const a = await h.newAccount({ balanceCents: 100 });
    expect((await request(h.app).post(`/admin/accounts/${a.id}/credits`).set(h.admin()).send({ amountCents: -40 })).body).toEqual({ balanceCents: 60 });
    const over = await request(h.app).post(`/admin/accounts/${a.id}/credits`).set(h.admin()).send({ amountCents: -61 });
    expect(over.status).toBe(400);
    expect(over.body.details[0].path).toBe('amountCents');
    const entries = (await request(h.app).get(`/admin/accounts/${a.id}/ledger`).set(h.admin())).body.entries;
    expect(entries[0]).toMatchObject({ kind: 'adjustment', amountCents: -40 });
  });

  it('validates admin bodies and 404s unknown ids', async () => {
    const bad = await request(h.app).post('/admin/accounts').set(h.admin()).send({ name: '', balanceCents: -5 });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('validation_error');
    expect(bad.body.details.map((d: { path: string }) => d.path).sort()).toEqual(['balanceCents', 'name']);
    await request(h.app).post('/admin/accounts/nope/credits').set(h.admin()).send({ amountCents: 5 }).expect(404);
    await request(h.app).get('/admin/accounts/nope').set(h.admin()).expect(404);
    await request(h.app).post('/admin/accounts/nope/api-keys').set(h.admin()).expect(404);
    await request(h.app).delete('/admin/api-keys/nope').set(h.admin()).expect(404);
    await request(h.app).get('/admin/tasks/nope').set(h.admin()).expect(404);
    await request(h.app).post(`/admin/accounts/nope/credits`).set(h.admin()).send({ amountCents: 0 }).expect(400);
  });

  it('PATCH changes the per-account limits', async () => {
    const a = await h.newAccount();
    const res = await request(h.app).patch(`/admin/accounts/${a.id}`).set(h.admin()).send({ maxConcurrentTasks: 3, rateLimitPerMinute: 100 });
    expect(res.body).toMatchObject({ maxConcurrentTasks: 3, rateLimitPerMinute: 100 });
  });

  it('shows a task with its attempts', async () => {
    const a = await h.newAccount();
    const t = await request(h.app).post('/api/image/generate').set(a.auth).send({ model: 'image-b-2.5', prompt: 'p' });
    const res = await request(h.app).get(`/admin/tasks/${t.body.taskId}`).set(h.admin());
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: t.body.taskId, accountId: a.id, model: 'image-b-2.5', status: 'pending', costCents: 3, attempts: [] });
    // An explicit shape: the fields admin clients have always seen, and no others.
    expect(Object.keys(res.body).sort()).toEqual(
      ['accountId', 'attempts', 'billedSeconds', 'channelIndex', 'costCents', 'costMicros', 'createdAt', 'deadlineAt', 'effectivePrompt', 'errorCode', 'errorMessage', 'finishedAt', 'id', 'model', 'params', 'progress', 'promptFallbackReason', 'promptOptimized', 'resultUrls', 'retryable', 'startedAt', 'status', 'type', 'updatedAt'].sort(),
    );
    expect(res.body).toMatchObject({ type: 'image', costMicros: expect.stringMatching(/^\d+$/), createdAt: expect.stringMatching(/Z$/), params: expect.objectContaining({ prompt: 'p' }) });
    // No optimize_prompt: the prompt goes as written, and nothing was decided by an optimizer.
    expect(res.body).toMatchObject({ effectivePrompt: 'p', promptOptimized: null, promptFallbackReason: null });
  });
});

describe('OpenAPI and reference page', () => {
  it('serves /openapi.json version 1.0.0 with every public path, generated from the validating schemas', async () => {
    const res = await request(h.app).get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.info.version).toBe('1.0.0');
    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining([
        '/api/balance',
        '/api/image/generate',
        '/api/image/tasks/{taskId}',
        '/api/video/generate',
        '/api/video/tasks/{taskId}',
        '/admin/accounts',
        '/admin/tasks/{taskId}',
        '/files/{key}',
        '/healthz',
        '/readyz',
        '/',
      ]),
    );
    const body = JSON.stringify(res.body);
    for (const model of ['video-a-h3', 'video-b-2.5', 'video-c-3.1', 'image-d-2.5-flash-image']) expect(body).toContain(model);
    expect(res.body.paths['/api/video/generate'].post.responses['402']).toBeDefined();
  });

  it('serves a readable HTML reference at /docs/', async () => {
    const res = await request(h.app).get('/docs/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toContain('Media generation API reference');
  });
});

describe('Bull Board', () => {
  it('is served at /admin/queues behind the admin token and lists every queue', async () => {
    const page = await request(h.app).get('/admin/queues').set(h.admin());
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    const api = await request(h.app).get('/admin/queues/api/queues').set(h.admin());
    expect(api.status).toBe(200);
    expect(api.body.queues.map((q: { name: string }) => q.name).sort()).toEqual(['maintenance', 'tasks', 'webhooks']);
  });
});
