// Extensions on the gateway alone (no worker): GET /api/tasks and the admin listings with cursor
// pagination, cancel of a task no upstream has accepted, and the cancel refusals.
import request from 'supertest';
import { startHarness, Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness('listing', { INSTANT_WAIT_MS: '0', POLL_CACHE_MS: '0', CANCEL_WAIT_MS: '300' });
});
afterAll(async () => {
  await h.assertLedgerInvariant();
  await h.close();
});

const video = { model: 'video-a-h3', prompt: 'a red fox running through snow', resolution: '480p', duration: 5 };
const image = { model: 'image-b-2.5', prompt: 'a lighthouse at dusk' };

describe('GET /api/tasks', () => {
  it('lists the account\'s tasks newest first across pages, filters, and refuses bad parameters', async () => {
    const a = await h.newAccount({ balanceCents: 100_000, maxConcurrentTasks: 100 });
    const other = await h.newAccount();
    await request(h.app).post('/api/video/generate').set(other.auth).send(video).expect(200);
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const kind = i % 3 === 0 ? 'image' : 'video';
      const res = await request(h.app).post(`/api/${kind}/generate`).set(a.auth).send(kind === 'image' ? image : video);
      ids.push(res.body.taskId);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: request.Response = await request(h.app).get('/api/tasks').query({ limit: 3, ...(cursor ? { cursor } : {}) }).set(a.auth);
      expect(res.status).toBe(200);
      pages += 1;
      for (const t of res.body.data) {
        expect(t).toMatchObject({ taskId: expect.any(String), status: 'pending', model: expect.any(String), createdAt: expect.stringMatching(/Z$/) });
        seen.push(t.taskId);
      }
      cursor = res.body.nextCursor;
      // A task created while paging is newer than the cursor: it never shows up on a later page.
      if (pages === 1) await request(h.app).post('/api/video/generate').set(a.auth).send(video).expect(200);
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...ids].reverse());

    const images = await request(h.app).get('/api/tasks?type=image').set(a.auth);
    expect(images.body.data.map((t: { taskId: string }) => t.taskId)).toEqual([ids[6], ids[3], ids[0]]);
    expect(images.body.nextCursor).toBeNull();
    const byModel = await request(h.app).get('/api/tasks?model=image-b-2.5&status=pending&limit=1').set(a.auth);
    expect(byModel.body.data).toHaveLength(1);
    expect(byModel.body.nextCursor).toEqual(expect.any(String));

    for (const q of ['cursor=garbage', `cursor=${Buffer.from('["ledger","2026-01-01T00:00:00.000Z","x"]').toString('base64url')}`]) {
      const bad = await request(h.app).get(`/api/tasks?${q}`).set(a.auth);
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('invalid_cursor');
    }
    for (const q of ['limit=0', 'limit=101', 'status=done', 'stauts=pending']) {
      const bad = await request(h.app).get(`/api/tasks?${q}`).set(a.auth);
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('validation_error');
    }
  });
});

describe('cancel', () => {
  it('fails a task no upstream accepted with cancelled, refunds it, and answers the same body again', async () => {
    const a = await h.newAccount({ balanceCents: 1_000 });
    const sub = await request(h.app).post('/api/video/generate').set(a.auth).send(video);
    const before = (await request(h.app).get('/api/balance').set(a.auth)).body.balanceCents;
    expect(before).toBeLessThan(1_000);
    const first = await request(h.app).post(`/api/video/tasks/${sub.body.taskId}/cancel`).set(a.auth);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ taskId: sub.body.taskId, status: 'failed', errorCode: 'cancelled', retryable: false, errorMessage: expect.any(String), type: 'video' });
    const again = await request(h.app).post(`/api/video/tasks/${sub.body.taskId}/cancel`).set(a.auth);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect((await request(h.app).get('/api/balance').set(a.auth)).body.balanceCents).toBe(1_000);
    const poll = await request(h.app).get(`/api/video/tasks/${sub.body.taskId}`).set(a.auth);
    expect(poll.body).toMatchObject({ status: 'failed', errorCode: 'cancelled', retryable: false });
    const ledger = await request(h.app).get(`/admin/accounts/${a.id}/ledger`).set(h.admin());
    expect(ledger.body.entries.filter((e: { taskId: string }) => e.taskId === sub.body.taskId).map((e: { kind: string }) => e.kind).sort()).toEqual(['charge', 'refund']);
    expect((await request(h.app).get(`/admin/accounts/${a.id}`).set(h.admin())).body.tasksInProgress).toBe(0);
  });

  it('404s another account\'s task and the wrong endpoint; 409s a finished task', async () => {
    const a = await h.newAccount();
    const b = await h.newAccount();
    const sub = await request(h.app).post('/api/image/generate').set(a.auth).send(image);
    expect((await request(h.app).post(`/api/image/tasks/${sub.body.taskId}/cancel`).set(b.auth)).status).toBe(404);
    expect((await request(h.app).post(`/api/video/tasks/${sub.body.taskId}/cancel`).set(a.auth)).status).toBe(404);
    await h.deps.db.task.update({ where: { id: sub.body.taskId }, data: { status: 'completed', resultUrls: ['https://cdn.example/x.png'] } });
    const done = await request(h.app).post(`/api/image/tasks/${sub.body.taskId}/cancel`).set(a.auth);
    expect(done.status).toBe(409);
    expect(done.body.code).toBe('not_cancellable');
  });

  it('409s a render running on a channel that cannot cancel upstream', async () => {
    const a = await h.newAccount();
    const sub = await request(h.app).post('/api/video/generate').set(a.auth).send(video);
    await h.deps.db.task.update({ where: { id: sub.body.taskId }, data: { status: 'processing' } });
    await h.deps.db.taskAttempt.create({ data: { id: `att_${sub.body.taskId}`, taskId: sub.body.taskId, attemptNo: 1, channelId: 'plain', upstreamId: 'up-1', status: 'running' } });
    const res = await request(h.app).post(`/api/video/tasks/${sub.body.taskId}/cancel`).set(a.auth);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('not_cancellable');
    // Put it back in a state the ledger check at the end accepts (charged, in progress).
    await h.deps.db.taskAttempt.update({ where: { id: `att_${sub.body.taskId}` }, data: { status: 'failed' } });
  });
});

describe('admin listings', () => {
  it('pages the ledger past its page size with nextCursor (default response keeps `entries`)', async () => {
    const a = await h.newAccount({ balanceCents: 100 });
    for (let i = 0; i < 5; i++) await request(h.app).post(`/admin/accounts/${a.id}/credits`).set(h.admin()).send({ amountCents: i + 1 }).expect(200);
    const all = await request(h.app).get(`/admin/accounts/${a.id}/ledger`).set(h.admin());
    expect(all.body.entries).toHaveLength(6);
    expect(all.body.nextCursor).toBeNull();
    const p1 = await request(h.app).get(`/admin/accounts/${a.id}/ledger?limit=4`).set(h.admin());
    const p2 = await request(h.app).get(`/admin/accounts/${a.id}/ledger?limit=4&cursor=${p1.body.nextCursor}`).set(h.admin());
    expect([...p1.body.entries, ...p2.body.entries].map((e: { id: string }) => e.id)).toEqual(all.body.entries.map((e: { id: string }) => e.id));
    expect(p2.body.nextCursor).toBeNull();
    expect((await request(h.app).get(`/admin/accounts/${a.id}/ledger?limit=1001`).set(h.admin())).status).toBe(400);
  });

  it('lists tasks for admins, per account, with the same cursor', async () => {
    const a = await h.newAccount();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await request(h.app).post('/api/video/generate').set(a.auth).send(video)).body.taskId);
    const p1 = await request(h.app).get(`/admin/tasks?accountId=${a.id}&limit=2`).set(h.admin());
    const p2 = await request(h.app).get(`/admin/tasks?accountId=${a.id}&limit=2&cursor=${p1.body.nextCursor}`).set(h.admin());
    expect([...p1.body.data, ...p2.body.data].map((t: { id: string }) => t.id)).toEqual([...ids].reverse());
    expect(p1.body.data[0]).toMatchObject({ accountId: a.id, costCents: expect.any(Number), status: 'pending' });
  });
});
