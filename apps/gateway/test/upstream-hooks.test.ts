// POST /hooks/upstream/{channelId}: a verified upstream callback wakes the task's waiting job at
// once; an unsigned (ModelArk) one only with the per-task token we put in its URL; anything
// unverifiable or unknown is a 4xx with the error body and moves nothing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { Job, Worker } from 'bullmq';
import IORedis from 'ioredis';
import { Webhook } from 'standardwebhooks';
import { createTaskWithCharge, newId } from '@mediagen/db';
import { callbackSecret, callbackUrl } from '@mediagen/providers';
import { takeWake } from '@mediagen/queue';
import { Harness, startHarness } from './harness';

const SECRET = `whsec_${Buffer.from('replicate-test-secret-0123456789').toString('base64')}`;
let h: Harness;
let dir: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-hooks-'));
  const base = { apiKey: 'k', costOrder: 1, models: { 'video-b-2.5': 'dreamina-seedance-2-5-260628' } };
  const file = path.join(dir, 'channels.json');
  fs.writeFileSync(
    file,
    JSON.stringify({
      channels: [
        { ...base, id: 'ark', protocol: 'modelark', baseUrl: 'https://ark.example/api/v3' },
        { ...base, id: 'rep', protocol: 'replicate', baseUrl: 'https://api.replicate.example/v1', webhookSecret: SECRET, models: { 'video-b-2.5': 'bytedance/seedance-2.5' } },
        { ...base, id: 'plain', baseUrl: 'https://plain.example' },
      ],
    }),
  );
  h = await startHarness('hooks', { PROVIDER_CONFIG: file });
});
afterAll(async () => {
  await h?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A task with an attempt on `channel` whose job sits delayed, as between two polls. */
async function waitingTask(channel: string, upstreamId: string): Promise<string> {
  const acc = await h.newAccount();
  const taskId = newId();
  await createTaskWithCharge(h.deps.db, { taskId, accountId: acc.id, type: 'video', model: 'video-b-2.5', params: { type: 'video', model: 'video-b-2.5' },
    costCents: 10, costMicros: 100_000n, billedSeconds: 5, deadlineAt: new Date(Date.now() + 3_600_000) });
  await h.deps.db.taskAttempt.create({ data: { id: newId('att'), taskId, attemptNo: 1, channelId: channel, upstreamId, status: 'running' } });
  await h.deps.queue.add('run-task', { taskId, step: 'poll', transientErrors: 0 }, { jobId: taskId, delay: 3_600_000 });
  return taskId;
}
const jobState = (taskId: string) => h.deps.queue.getJob(taskId).then((j) => j!.getState());

describe('ModelArk (unsigned): the per-task token', () => {
  it('wakes the task when the token in the URL verifies', async () => {
    const taskId = await waitingTask('ark', 'cgt-1');
    const url = new URL(callbackUrl('http://x', callbackSecret(h.deps.config), 'ark', taskId));
    const res = await request(h.app).post(`${url.pathname}${url.search}`).send({ id: 'cgt-1', status: 'succeeded' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true, woken: true });
    expect(await jobState(taskId)).toBe('waiting');
  });

  it('passes a succeeded task\'s video link on in the job as a claim; a running task, or a link that is not http(s), gives none', async () => {
    const jobData = async (taskId: string) => (await h.deps.queue.getJob(taskId))!.data as Record<string, unknown>;
    const link = 'https://ark-content.tos.example/v/cgt-3.mp4?X-Tos-Signature=a%2Fb';
    const post = (taskId: string, body: object) => {
      const url = new URL(callbackUrl('http://x', callbackSecret(h.deps.config), 'ark', taskId));
      return request(h.app).post(`${url.pathname}${url.search}`).send(body);
    };
    const done = await waitingTask('ark', 'cgt-3');
    expect((await post(done, { id: 'cgt-3', status: 'succeeded', content: { video_url: link } })).body).toEqual({ received: true, woken: true });
    expect(await jobData(done)).toEqual({ taskId: done, step: 'poll', transientErrors: 0, claim: { upstreamId: 'cgt-3', urls: [link] } });

    const running = await waitingTask('ark', 'cgt-4');
    expect((await post(running, { id: 'cgt-4', status: 'running' })).body).toEqual({ received: true, woken: true });
    expect(await jobData(running)).toEqual({ taskId: running, step: 'poll', transientErrors: 0 });

    const odd = await waitingTask('ark', 'cgt-5');
    expect((await post(odd, { id: 'cgt-5', status: 'succeeded', content: { video_url: 'file:///etc/passwd' } })).body).toEqual({ received: true, woken: true });
    expect(await jobData(odd)).toEqual({ taskId: odd, step: 'poll', transientErrors: 0 });
  });

  it('refuses a wrong or missing token with 401 and leaves the job waiting', async () => {
    const taskId = await waitingTask('ark', 'cgt-2');
    for (const q of [`?task=${taskId}&token=forged`, `?task=${taskId}`, '']) {
      const res = await request(h.app).post(`/hooks/upstream/ark${q}`).send({ id: 'cgt-2', status: 'succeeded' });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 'unauthorized', error: expect.any(String) });
    }
    // A token for another channel does not verify here either.
    const other = new URL(callbackUrl('http://x', callbackSecret(h.deps.config), 'rep', taskId));
    expect((await request(h.app).post(`/hooks/upstream/ark${other.search}`).send({})).status).toBe(401);
    expect(await jobState(taskId)).toBe('delayed');
  });
});

describe('Replicate (signed, Standard Webhooks)', () => {
  const signed = (body: object, secret = SECRET) => {
    const raw = JSON.stringify(body);
    const id = `msg_${Math.random()}`;
    const ts = new Date();
    return { raw, headers: { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(ts.getTime() / 1000)), 'webhook-signature': new Webhook(secret).sign(id, ts, raw) } };
  };

  it('wakes the task of the render a verified callback names (no token needed)', async () => {
    const taskId = await waitingTask('rep', 'pred-1');
    const { raw, headers } = signed({ id: 'pred-1', status: 'succeeded' });
    const res = await request(h.app).post('/hooks/upstream/rep').set(headers).set('content-type', 'application/json').send(raw);
    expect(res.status).toBe(200);
    expect(await jobState(taskId)).toBe('waiting');
  });

  it('passes a succeeded prediction\'s output on as a claim', async () => {
    const taskId = await waitingTask('rep', 'pred-3');
    const output = ['https://replicate.delivery/xezq/pred-3/out.mp4'];
    const { raw, headers } = signed({ id: 'pred-3', status: 'succeeded', output });
    expect((await request(h.app).post('/hooks/upstream/rep').set(headers).set('content-type', 'application/json').send(raw)).status).toBe(200);
    expect((await h.deps.queue.getJob(taskId))!.data).toMatchObject({ claim: { upstreamId: 'pred-3', urls: output } });
  });

  it('refuses a bad signature (401), and a verified callback for a render we do not have (404)', async () => {
    const taskId = await waitingTask('rep', 'pred-2');
    const forged = signed({ id: 'pred-2', status: 'succeeded' }, `whsec_${Buffer.from('someone-else-secret-0123456789').toString('base64')}`);
    const bad = await request(h.app).post('/hooks/upstream/rep').set(forged.headers).set('content-type', 'application/json').send(forged.raw);
    expect(bad.status).toBe(401);
    expect(await jobState(taskId)).toBe('delayed');
    const unknown = signed({ id: 'pred-unknown', status: 'succeeded' });
    const res = await request(h.app).post('/hooks/upstream/rep').set(unknown.headers).set('content-type', 'application/json').send(unknown.raw);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'not_found' });
  });
});

it('answers 404 for an unknown channel and for a channel that takes no callbacks', async () => {
  for (const ch of ['nope', 'plain']) {
    const res = await request(h.app).post(`/hooks/upstream/${ch}`).send({ id: 'x' });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'not_found' });
  }
});

describe('a callback that comes in while the task step runs', () => {
  // The job is active (its step is reading the upstream, which still said "running"): it cannot be
  // promoted then. The wake must not be lost: when the step has put the job back in the delayed
  // set for its next poll, takeWake finds the callback's flag and runs the job again at once.
  async function activeTask(): Promise<{ taskId: string; job: Job; token: string }> {
    const taskId = await waitingTask('ark', `cgt-${taskId0++}`);
    // Jobs the tests above woke are waiting too: only this one may be taken.
    await h.deps.queue.drain();
    await (await h.deps.queue.getJob(taskId))!.promote();
    const connection = new IORedis(h.deps.config.REDIS_URL, { maxRetriesPerRequest: null });
    const worker = new Worker(h.deps.queue.name, null, { connection, prefix: h.deps.queue.opts.prefix, autorun: false });
    workers.push(async () => {
      await worker.close(true);
      connection.disconnect();
    });
    const token = `t-${taskId}`;
    const job = (await worker.getNextJob(token)) as Job;
    expect(job.id).toBe(taskId);
    expect(await jobState(taskId)).toBe('active');
    return { taskId, job, token };
  }
  let taskId0 = 100;
  const workers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const stop of workers) await stop();
  });
  const callback = async (taskId: string) => {
    const url = new URL(callbackUrl('http://x', callbackSecret(h.deps.config), 'ark', taskId));
    return request(h.app).post(`${url.pathname}${url.search}`).send({ status: 'succeeded' });
  };

  it('the step end runs the job again at once instead of sleeping until its next poll', async () => {
    const { taskId, job, token } = await activeTask();
    const res = await callback(taskId);
    expect(res.body).toEqual({ received: true, woken: false });
    // The step ends as the worker's run-task does: back to the delayed set for the next poll...
    await job.moveToDelayed(Date.now() + 3_600_000, token);
    expect(await takeWake(h.deps.queue, h.deps.redis, job)).toBe(true);
    // ...and the wake it missed moves it to run now.
    expect(await jobState(taskId)).toBe('waiting');
  });

  // One script answers the check and leaves the flag (packages/queue wakeTask): a task whose job is
  // gone gets neither a promote nor a flag; a waiting job is not delayed, so it gets the flag.
  it('a task without a job is left alone; a job already waiting is flagged, not promoted', async () => {
    const flag = (taskId: string) => h.deps.redis.exists(`${h.deps.queue.opts.prefix}:wake:${taskId}`);
    const gone = await waitingTask('ark', `cgt-${taskId0++}`);
    await (await h.deps.queue.getJob(gone))!.remove();
    expect((await callback(gone)).body).toEqual({ received: true, woken: false });
    expect(await flag(gone)).toBe(0);
    const waiting = await waitingTask('ark', `cgt-${taskId0++}`);
    await (await h.deps.queue.getJob(waiting))!.promote();
    expect((await callback(waiting)).body).toEqual({ received: true, woken: false });
    expect(await jobState(waiting)).toBe('waiting');
    expect(await flag(waiting)).toBe(1);
  });

  it('a step that ends with no callback stays delayed, and a delivered wake is not taken twice', async () => {
    const { taskId, job, token } = await activeTask();
    await job.moveToDelayed(Date.now() + 3_600_000, token);
    expect(await takeWake(h.deps.queue, h.deps.redis, job)).toBe(false);
    expect(await jobState(taskId)).toBe('delayed');
    // Delayed now: the callback promotes it itself and leaves no flag for the next step.
    expect((await callback(taskId)).body).toEqual({ received: true, woken: true });
    expect(await takeWake(h.deps.queue, h.deps.redis, job)).toBe(false);
  });
});
