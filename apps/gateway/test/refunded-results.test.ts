// A result stored before the completing compare-and-set, which then lost (the
// task failed and was refunded meanwhile), must not be served at its predictable URL.
import request from 'supertest';
import { completeTask, failTask } from '@mediagen/db';
import { resultKey } from '@mediagen/storage';
import { startHarness, Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness('refunded-results', { INSTANT_WAIT_MS: '0' });
});
afterAll(async () => {
  await h.assertLedgerInvariant();
  await h.close();
});

const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a0f1a3e10000000049454e44ae426082', 'hex');

async function submitted(a: { auth: { Authorization: string } }): Promise<string> {
  const res = await request(h.app).post('/api/image/generate').set(a.auth).send({ model: 'image-b-2.5', prompt: 'p' });
  expect(res.status).toBe(200);
  return res.body.taskId;
}

it('serves no result of a failed, refunded task; serves the result of a completed one', async () => {
  const a = await h.newAccount();
  const failed = await submitted(a);
  const completed = await submitted(a);
  // The worker stored both results, then lost the race for the first task (the sweep failed it).
  for (const id of [failed, completed]) await h.deps.storage.put(resultKey(id, 0, 'image/png'), png, 'image/png');
  expect(await failTask(h.deps.db, failed, { errorCode: 'timeout', errorMessage: 'x', retryable: true })).toBe(true);
  expect(await completeTask(h.deps.db, failed, ['u'])).toBe(false);
  expect(await completeTask(h.deps.db, completed, ['u'])).toBe(true);

  const refused = await request(h.app).get(`/files/${resultKey(failed, 0, 'image/png')}`);
  expect(refused.status).toBe(404);
  expect(refused.body).toMatchObject({ code: 'not_found' });
  expect((await request(h.app).head(`/files/${resultKey(failed, 0, 'image/png')}`)).status).toBe(404);
  const served = await request(h.app).get(`/files/${resultKey(completed, 0, 'image/png')}`);
  expect(served.status).toBe(200);
  expect(served.headers['content-type']).toBe('image/png');
});
