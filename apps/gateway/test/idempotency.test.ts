// Idempotency, including the race of 20 concurrent submits.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { startHarness, Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness('idem', { INSTANT_WAIT_MS: '0' });
});
afterAll(async () => {
  await h.assertLedgerInvariant();
  await h.close();
});

const image = { model: 'image-b-2.5', prompt: 'a lighthouse at dusk' };
const charges = (accountId: string) => h.deps.db.ledgerEntry.count({ where: { accountId, kind: 'charge' } });

it('a repeat with the same header id returns the original task with idempotentReplay and charges once', async () => {
  const a = await h.newAccount();
  const first = await request(h.app).post('/api/image/generate').set(a.auth).set('Idempotency-Key', 'order-1').send(image);
  const again = await request(h.app).post('/api/image/generate').set(a.auth).set('Idempotency-Key', 'order-1').send(image);
  expect(first.status).toBe(200);
  expect(first.body.idempotentReplay).toBeUndefined();
  expect(again.status).toBe(200);
  expect(again.body).toEqual({ taskId: first.body.taskId, generationId: first.body.taskId, status: 'pending', idempotentReplay: true, costCents: 3 });
  expect(await charges(a.id)).toBe(1);
});

it('client_request_id works the same, and the header wins over it', async () => {
  const a = await h.newAccount();
  const first = await request(h.app).post('/api/image/generate').set(a.auth).send({ ...image, client_request_id: 'body-id' });
  const byBody = await request(h.app).post('/api/image/generate').set(a.auth).send({ ...image, client_request_id: 'body-id' });
  expect(byBody.body).toMatchObject({ taskId: first.body.taskId, idempotentReplay: true });
  // The header id is a different id: a new task, even though the body repeats client_request_id.
  const headerWins = await request(h.app).post('/api/image/generate').set(a.auth).set('Idempotency-Key', 'header-id').send({ ...image, client_request_id: 'body-id' });
  expect(headerWins.body.taskId).not.toBe(first.body.taskId);
  expect(headerWins.body.idempotentReplay).toBeUndefined();
  // ...and the header id moved into the body replays it.
  const moved = await request(h.app).post('/api/image/generate').set(a.auth).send({ ...image, client_request_id: 'header-id' });
  expect(moved.body).toMatchObject({ taskId: headerWins.body.taskId, idempotentReplay: true });
  expect(await charges(a.id)).toBe(2);
});

it('ids are scoped to the account', async () => {
  const a = await h.newAccount();
  const b = await h.newAccount();
  const ra = await request(h.app).post('/api/image/generate').set(a.auth).set('Idempotency-Key', 'shared').send(image);
  const rb = await request(h.app).post('/api/image/generate').set(b.auth).set('Idempotency-Key', 'shared').send(image);
  expect(rb.body.taskId).not.toBe(ra.body.taskId);
  expect(rb.body.idempotentReplay).toBeUndefined();
});

it('the same id with a different request -> 422 idempotency_key_reused, nothing charged', async () => {
  const a = await h.newAccount();
  await request(h.app).post('/api/image/generate').set(a.auth).set('Idempotency-Key', 'k').send(image).expect(200);
  const res = await request(h.app).post('/api/image/generate').set(a.auth).set('Idempotency-Key', 'k').send({ ...image, prompt: 'other' });
  expect(res.status).toBe(422);
  expect(res.body.code).toBe('idempotency_key_reused');
  expect(await charges(a.id)).toBe(1);
});

it.each([
  ['empty header', '', 400],
  ['256 characters', 'k'.repeat(256), 400],
  ['255 characters', 'k'.repeat(255), 200],
  ['1 character', 'k', 200],
])('Idempotency-Key %s -> %d', async (_n, key, status) => {
  const a = await h.newAccount();
  const res = await request(h.app).post('/api/image/generate').set(a.auth).set('Idempotency-Key', key).send(image);
  expect(res.status).toBe(status);
  if (status === 400) expect(res.body.details).toEqual([{ path: 'Idempotency-Key', message: expect.any(String) }]);
});

it.each([
  ['empty', '', 400],
  ['256 characters', 'k'.repeat(256), 400],
  ['a number', 5, 400],
])('client_request_id %s -> %d naming the field', async (_n, id, status) => {
  const a = await h.newAccount();
  const res = await request(h.app).post('/api/image/generate').set(a.auth).send({ ...image, client_request_id: id });
  expect(res.status).toBe(status);
  expect(res.body.details[0].path).toBe('client_request_id');
});

it('409 while the first submit with that id is still inside its request', async () => {
  const a = await h.newAccount();
  // A claim without a task is exactly what a submit in progress leaves in the table.
  await h.deps.db.idempotencyRecord.create({ data: { accountId: a.id, key: 'busy', fingerprint: 'x' } });
  const res = await request(h.app).post('/api/image/generate').set(a.auth).set('Idempotency-Key', 'busy').send(image);
  expect(res.status).toBe(409);
  expect(res.body.code).toBe('idempotency_in_progress');
  expect(await charges(a.id)).toBe(0);
});

it('a claim left by a request that died is taken over after it goes stale', async () => {
  const a = await h.newAccount();
  await h.deps.db.idempotencyRecord.create({ data: { accountId: a.id, key: 'dead', fingerprint: 'x', createdAt: new Date(Date.now() - 120_000) } });
  const res = await request(h.app).post('/api/image/generate').set(a.auth).set('Idempotency-Key', 'dead').send(image);
  expect(res.status).toBe(200);
  expect(res.body.idempotentReplay).toBeUndefined();
});

it('a refused submit (402) releases the id: after a top-up the same id creates the task', async () => {
  const a = await h.newAccount({ balanceCents: 1 });
  await request(h.app).post('/api/image/generate').set(a.auth).set('Idempotency-Key', 'later').send(image).expect(402);
  await request(h.app).post(`/admin/accounts/${a.id}/credits`).set(h.admin()).send({ amountCents: 100 }).expect(200);
  const res = await request(h.app).post('/api/image/generate').set(a.auth).set('Idempotency-Key', 'later').send(image);
  expect(res.status).toBe(200);
  expect(res.body.idempotentReplay).toBeUndefined();
});

it('a failed task keeps being returned for its id, with its error fields', async () => {
  const a = await h.newAccount();
  const first = await request(h.app).post('/api/image/generate').set(a.auth).set('Idempotency-Key', 'f').send(image);
  await h.deps.db.task.update({ where: { id: first.body.taskId }, data: { status: 'failed', errorCode: 'generation_failed', errorMessage: 'boom', retryable: true } });
  const again = await request(h.app).post('/api/image/generate').set(a.auth).set('Idempotency-Key', 'f').send(image);
  expect(again.status).toBe(200);
  expect(again.body).toMatchObject({ taskId: first.body.taskId, status: 'failed', errorCode: 'generation_failed', retryable: true, idempotentReplay: true });
  expect(await charges(a.id)).toBe(1);
});

it('20 concurrent submits with one id produce one task and one charge', async () => {
  const a = await h.newAccount();
  const res = await Promise.all(
    Array.from({ length: 20 }, () => request(h.app).post('/api/image/generate').set(a.auth).set('Idempotency-Key', 'race').send(image)),
  );
  const ok = res.filter((r) => r.status === 200);
  expect(res.every((r) => r.status === 200 || r.status === 409)).toBe(true);
  expect(new Set(ok.map((r) => r.body.taskId)).size).toBe(1);
  expect(ok.filter((r) => !r.body.idempotentReplay)).toHaveLength(1);
  expect(await h.deps.db.task.count({ where: { accountId: a.id } })).toBe(1);
  expect(await charges(a.id)).toBe(1);
  // Once it settles, every repeat is a replay.
  const after = await request(h.app).post('/api/image/generate').set(a.auth).set('Idempotency-Key', 'race').send(image);
  expect(after.body).toMatchObject({ taskId: ok[0].body.taskId, idempotentReplay: true });
});

/** A submit whose Idempotency-Key goes on the wire as the UTF-8 bytes of `id`, as clients send it. */
async function submitWithUtf8Header(auth: { Authorization: string }, id: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const server = h.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  try {
    const { port } = server.address() as AddressInfo;
    const payload = JSON.stringify(image);
    return await new Promise((resolve, reject) => {
      const req = http.request(
        // Node writes header strings as latin1: one byte per character, so these are the UTF-8 bytes.
        { port, host: '127.0.0.1', method: 'POST', path: '/api/image/generate', headers: { ...auth, 'Content-Type': 'application/json', 'Idempotency-Key': Buffer.from(id, 'utf8').toString('latin1') } },
        (res) => {
          let text = '';
          res.on('data', (c) => (text += c)).on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
        },
      );
      req.on('error', reject);
      // A Buffer body: with a string body Node writes the header block in the body's encoding (UTF-8).
      req.end(Buffer.from(payload));
    });
  } finally {
    server.close();
  }
}

it('header and body ids are one id in one encoding, both measured in characters', async () => {
  const a = await h.newAccount();
  // 255 characters, 510 UTF-8 bytes: within the limit whichever way it is sent.
  const id = '\u00e9'.repeat(255);
  const byHeader = await submitWithUtf8Header(a.auth, id);
  expect(byHeader.status).toBe(200);
  const byBody = await request(h.app).post('/api/image/generate').set(a.auth).send({ ...image, client_request_id: id });
  expect(byBody.body).toMatchObject({ taskId: byHeader.body.taskId, idempotentReplay: true });
  // 255 emoji are 510 UTF-16 units but 255 characters: accepted in the body as in the header.
  const emoji = '\u{1F3AC}'.repeat(255);
  expect((await request(h.app).post('/api/image/generate').set(a.auth).send({ ...image, client_request_id: emoji })).status).toBe(200);
  expect((await submitWithUtf8Header(a.auth, emoji)).body).toMatchObject({ idempotentReplay: true });
  expect((await submitWithUtf8Header(a.auth, '\u00e9'.repeat(256))).status).toBe(400);
  expect(await charges(a.id)).toBe(2);
});
