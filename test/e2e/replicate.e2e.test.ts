// The `replicate` protocol end to end: gateway, worker and the simulator speaking Replicate's
// predictions API (Prefer: wait for images, E005 refusals, 429 whose wait is only in the message),
// on real Postgres and Redis. Each refusal arrives in Replicate's own signal.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';
import { Webhook } from 'standardwebhooks';
import { Account, apiClient } from './support/api';
import { freePort } from './support/processes';
import type { Stack } from './support/stack';
import { e2eSuite } from './support/suite';
import { taskChecks } from './support/task-checks';
import { eventually } from './support/wait';

jest.setTimeout(60_000);

/** The movie duration from the file's own header (mvhd), in seconds. */
function mp4Seconds(bytes: Buffer): number {
  const at = bytes.indexOf('mvhd');
  if (at < 0) throw new Error('no mvhd box');
  const v1 = bytes[at + 4] === 1;
  const timescale = bytes.readUInt32BE(at + (v1 ? 24 : 16));
  const duration = v1 ? Number(bytes.readBigUInt64BE(at + 28)) : bytes.readUInt32BE(at + 20);
  return duration / timescale;
}

let stack: Stack;
let api: ReturnType<typeof apiClient>;
let account: Account;
let dir: string;

const MODELS = { 'video-b-2.0': 'bytedance/seedance-2.0', 'image-b-2.5': 'google/nano-banana-pro' };

e2eSuite(
  'replicate',
  {
    stack: async () => {
      const simPort = await freePort();
      const poll = { firstMs: 100, minMs: 200, maxMs: 1000 };
      // No webhookSecret: the adapter fetches it from the simulator's secret endpoint.
      const channel = (id: string, costOrder: number) => ({
        id, protocol: 'replicate', baseUrl: `http://127.0.0.1:${simPort}/replicate/v1`, apiKey: `r8_${id}`, tier: 'third-party', costOrder,
        reportsViolations: true, models: MODELS, poll, preferWaitSeconds: 10, cancelAfterSeconds: 600,
      });
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-replicate-'));
      // rep-hooks polls so rarely that only its signed callback can finish a task in time.
      const hooks = { ...channel('rep-hooks', 30), tier: null, models: { 'video-c-3.1-pro': 'google/veo-3.1' }, poll: { firstMs: 60_000, minMs: 60_000, maxMs: 60_000 } };
      fs.writeFileSync(path.join(dir, 'channels.json'), JSON.stringify({ channels: [channel('rep-main', 10), channel('rep-backup', 20), hooks] }));
      return { env: { PROVIDER_CONFIG: path.join(dir, 'channels.json'), SIM_PORT: String(simPort), SIM_RENDER_MS: '200', TASK_TIMEOUT_MS: '10000' } };
    },
  },
  (s) => ({ stack, api, account } = s),
);
afterAll(() => dir && fs.rmSync(dir, { recursive: true, force: true }));

let n = 0;
/** Prompts are unique per test: the simulator groups a Replicate task's calls by its prompt. */
const seedance = (prompt: string, duration = 6) => ({ model: 'video-b-2.0', prompt: `${prompt} (${++n} ${Date.now()})`, duration, ratio: '9:16', tier: 'third-party' });
const image = (prompt: string) => ({ model: 'image-b-2.5', prompt: `${prompt} (${++n} ${Date.now()})`, ratio: '4:3', resolution: '1k' });

const { submit, closedAttempts, attemptsOf, expectFailed } = taskChecks(() => ({ stack, api, account }));

it('Seedance on Replicate: completes with an MP4 of the requested length; predict_time is the attempt usage', async () => {
  const taskId = await submit('video', seedance('a harbour at night', 7));
  const last = (await api.untilSettled(account, 'video', taskId)).at(-1)!;
  expect(last).toMatchObject({ status: 'completed' });
  const file = await api.fetchFile((last.resultUrls as string[])[0]);
  expect(file.headers.get('content-type')).toBe('video/mp4');
  expect(mp4Seconds(file.bytes)).toBeCloseTo(7, 1);
  const [attempt] = await closedAttempts(taskId);
  expect([attempt.channelId, attempt.status, attempt.usageUnits]).toEqual(['rep-main', 'completed', 'predict_seconds']);
  expect(attempt.usageAmount).toBeGreaterThan(0);
});

it('an image model (held by Prefer: wait): completes with a PNG at the requested ratio', async () => {
  const taskId = await submit('image', image('a red fox'));
  const last = (await api.untilSettled(account, 'image', taskId)).at(-1)!;
  expect(last).toMatchObject({ status: 'completed' });
  const png = PNG.sync.read((await api.fetchFile((last.resultUrls as string[])[0])).bytes);
  expect([png.width, png.height]).toEqual([1024, 768]);
});

it('each refusal signal is a content_violation, refunded, with no fallback', async () => {
  // Failed with "flagged as sensitive (E005)" after running; then a prediction refused at once.
  for (const prompt of ['#sim:violation', '#sim:violation-input']) {
    const taskId = await submit('video', seedance(prompt));
    await expectFailed('video', taskId, 'content_violation');
    expect(await attemptsOf(taskId)).toEqual([['rep-main', 'violation']]);
  }
});

it('a failed prediction falls back to the next channel', async () => {
  const taskId = await submit('video', seedance('#sim:fail-first'));
  expect((await api.untilSettled(account, 'video', taskId)).at(-1)).toMatchObject({ status: 'completed' });
  expect(await attemptsOf(taskId)).toEqual([['rep-main', 'failed'], ['rep-backup', 'completed']]);
});

it('429 is retried on the same channel after the seconds its message names ("resets in ~1s")', async () => {
  const started = Date.now();
  const taskId = await submit('video', seedance('#sim:rate-limit=1'));
  expect((await api.untilSettled(account, 'video', taskId)).at(-1)).toMatchObject({ status: 'completed' });
  expect(await attemptsOf(taskId)).toEqual([['rep-main', 'completed']]);
  expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
});

it('a deleted output (Replicate removes API outputs after an hour; download 404) is no_result', async () => {
  const taskId = await submit('video', seedance('#sim:expired'));
  await expectFailed('video', taskId, 'no_result');
});

it('a Standard Webhooks callback (secret fetched from the secret endpoint) wakes the task at once', async () => {
  const started = Date.now();
  const taskId = await submit('video', { model: 'video-c-3.1', variant: 'video-c-3.1-pro', prompt: `a kite (${++n} ${Date.now()})`, ratio: '16:9' });
  expect((await api.untilSettled(account, 'video', taskId, 15_000)).at(-1)).toMatchObject({ status: 'completed' });
  expect(Date.now() - started).toBeLessThan(15_000);
  expect(await attemptsOf(taskId)).toEqual([['rep-hooks', 'completed']]);
});

it('a callback signed with another secret is refused', async () => {
  const body = JSON.stringify({ id: 'forged', status: 'succeeded', output: 'https://example.com/x.mp4' });
  const now = new Date();
  const other = new Webhook(`whsec_${Buffer.from('not the simulator secret!').toString('base64')}`);
  const res = await fetch(`${stack.gatewayUrl}/hooks/upstream/rep-hooks`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'webhook-id': 'msg_x', 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': other.sign('msg_x', now, body) },
    body,
  });
  expect(res.status).toBe(401);
});

it('a hanging render is cancelled upstream when the task times out (POST .../cancel: the prediction is canceled)', async () => {
  const taskId = await submit('video', seedance('#sim:hang'));
  const last = (await api.untilSettled(account, 'video', taskId, 30_000)).at(-1)!;
  expect(last).toMatchObject({ status: 'failed', errorCode: 'timeout' });
  const [attempt] = await stack.db.taskAttempt.findMany({ where: { taskId } });
  await eventually('the upstream render cancelled', async () => {
    const res = await fetch(`${stack.simUrl}/replicate/v1/predictions/${attempt.upstreamId}`, { headers: { Authorization: 'Bearer r8_rep-main' } });
    return ((await res.json()) as { status?: string }).status === 'canceled';
  });
});

it('a prediction that succeeded with no output is no_result, not a fallback', async () => {
  const taskId = await submit('video', seedance('#sim:no-file'));
  await expectFailed('video', taskId, 'no_result');
  expect(await attemptsOf(taskId)).toEqual([['rep-main', 'no_result']]);
});

it('SIGKILL mid-render: a new worker resumes polling the same prediction; exactly one prediction is created', async () => {
  const [w1] = stack.workers.filter((w) => w.child.exitCode === null && w.child.signalCode === null);
  const taskId = await submit('video', seedance('a worker killed mid-render #sim:delay=3000'));
  const running = await eventually('the prediction id recorded', () => stack.db.taskAttempt.findFirst({ where: { taskId, upstreamId: { not: null } } }));
  // The replacement is running before the kill: a process start takes seconds on a loaded machine,
  // and this file's TASK_TIMEOUT_MS (10 s) would otherwise end the task as `timeout` first. The
  // takeover then waits only for the job lock to lapse (WORKER_LOCK_MS).
  await stack.startWorker();
  w1.child.kill('SIGKILL');
  await w1.exited;
  const last = (await api.untilSettled(account, 'video', taskId, 60_000)).at(-1)!;
  expect(last).toMatchObject({ status: 'completed' });
  const sim = await api.simTask(taskId);
  expect(sim.submits).toBe(1);
  expect(sim.renders).toEqual([{ id: running.upstreamId, channelId: 'rep-main' }]);
  const [attempt] = await closedAttempts(taskId);
  expect([attempt.status, attempt.upstreamId]).toEqual(['completed', running.upstreamId]);
  expect((await stack.db.ledgerEntry.findMany({ where: { taskId } })).map((l) => l.kind)).toEqual(['charge']);
});
