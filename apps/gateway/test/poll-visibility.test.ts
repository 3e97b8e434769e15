// A settled task is visible to a polling client at once, even within POLL_CACHE_MS of a poll that
// cached it as pending (issue 15.1, time to result): the settlement drops the poll cache entry.
// Progress moves stay cached (spec 4.2); only terminal moves drop it.
import request from 'supertest';
import { settleCompleted, settleFailed } from '@mediagen/settle';
import { settleContext } from '../src/services/settle';
import { Harness, startHarness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness('poll-visibility', { POLL_CACHE_MS: '600000', INSTANT_WAIT_MS: '0' });
});
afterAll(async () => h.close());

const image = { model: 'image-b-2.5', prompt: 'a lighthouse at dusk' };

it('a poll right after the task completes answers completed, not the cached pending', async () => {
  const a = await h.newAccount();
  const id = (await request(h.app).post('/api/image/generate').set(a.auth).send(image)).body.taskId;
  expect((await request(h.app).get(`/api/image/tasks/${id}`).set(a.auth)).body.status).toBe('pending');
  expect(await settleCompleted(settleContext(h.deps), id, ['http://127.0.0.1:1/files/x.png'])).toBe(true);
  expect((await request(h.app).get(`/api/image/tasks/${id}`).set(a.auth)).body).toEqual({ status: 'completed', resultUrls: ['http://127.0.0.1:1/files/x.png'], type: 'image' });
});

it('a poll right after the task fails answers failed', async () => {
  const a = await h.newAccount();
  const id = (await request(h.app).post('/api/image/generate').set(a.auth).send(image)).body.taskId;
  expect((await request(h.app).get(`/api/image/tasks/${id}`).set(a.auth)).body.status).toBe('pending');
  expect(await settleFailed(settleContext(h.deps), id, 'generation_failed')).toBe(true);
  expect((await request(h.app).get(`/api/image/tasks/${id}`).set(a.auth)).body).toMatchObject({ status: 'failed', errorCode: 'generation_failed' });
});
