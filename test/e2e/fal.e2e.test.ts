// The `fal` protocol end to end: gateway, worker and the simulator speaking fal's queue API
// (sub-paths per reference, COMPLETED results that are errors, 429 with Retry-After), on real
// Postgres and Redis. Each refusal arrives in fal's own signal.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';
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

const MODELS = { 'video-b-2.0': 'bytedance/seedance-2.0', 'image-b-2.5': 'fal-ai/nano-banana' };

e2eSuite(
  'fal',
  {
    stack: async () => {
      const simPort = await freePort();
      const sim = `http://127.0.0.1:${simPort}/fal`;
      const poll = { firstMs: 100, minMs: 200, maxMs: 1000 };
      const channel = (id: string, costOrder: number) => ({
        id, protocol: 'fal', baseUrl: sim, apiKey: `${id}-key`, tier: 'third-party', costOrder, reportsViolations: true, models: MODELS, poll,
        webhookJwksUrl: `${sim}/.well-known/jwks.json`,
      });
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-fal-'));
      // fal-hooks polls so rarely that only its signed callback can finish a task in time.
      const hooks = { ...channel('fal-hooks', 30), tier: null, models: { 'video-c-3.1-fast': 'fal-ai/veo3.1/fast' }, poll: { firstMs: 60_000, minMs: 60_000, maxMs: 60_000 } };
      fs.writeFileSync(path.join(dir, 'channels.json'), JSON.stringify({ channels: [channel('fal-main', 10), channel('fal-backup', 20), hooks] }));
      return { env: { PROVIDER_CONFIG: path.join(dir, 'channels.json'), SIM_PORT: String(simPort), SIM_RENDER_MS: '200', TASK_TIMEOUT_MS: '10000' } };
    },
  },
  (s) => ({ stack, api, account } = s),
);
afterAll(() => dir && fs.rmSync(dir, { recursive: true, force: true }));

let n = 0;
/** Prompts are unique per test: the simulator groups a fal task's calls by its prompt. */
const seedance = (prompt: string, duration = 6) => ({ model: 'video-b-2.0', prompt: `${prompt} (${++n} ${Date.now()})`, duration, ratio: '9:16', tier: 'third-party' });
const image = (prompt: string) => ({ model: 'image-b-2.5', prompt: `${prompt} (${++n} ${Date.now()})`, ratio: '4:3', resolution: '1k' });

const { submit, closedAttempts, attemptsOf, expectFailed } = taskChecks(() => ({ stack, api, account }));

it('Seedance on fal: completes with an MP4 of the requested length', async () => {
  const taskId = await submit('video', seedance('a harbour at night', 7));
  const last = (await api.untilSettled(account, 'video', taskId)).at(-1)!;
  expect(last).toMatchObject({ status: 'completed' });
  const file = await api.fetchFile((last.resultUrls as string[])[0]);
  expect(file.headers.get('content-type')).toBe('video/mp4');
  expect(mp4Seconds(file.bytes)).toBeCloseTo(7, 1);
  const [attempt] = await closedAttempts(taskId);
  expect([attempt.channelId, attempt.status, attempt.usageUnits]).toEqual(['fal-main', 'completed', 'inference_seconds']);
});

it('an image app: completes with a PNG at the requested ratio', async () => {
  const taskId = await submit('image', image('a red fox'));
  const last = (await api.untilSettled(account, 'image', taskId)).at(-1)!;
  expect(last).toMatchObject({ status: 'completed' });
  const png = PNG.sync.read((await api.fetchFile((last.resultUrls as string[])[0])).bytes);
  expect([png.width, png.height]).toEqual([1024, 768]);
});

it('each refusal signal is a content_violation, refunded, with no fallback', async () => {
  // COMPLETED whose result is 422 content_policy_violation; then the same type on the submit itself.
  for (const prompt of ['#sim:violation', '#sim:violation-input']) {
    const taskId = await submit('video', seedance(prompt));
    await expectFailed('video', taskId, 'content_violation');
    expect(await attemptsOf(taskId)).toEqual([['fal-main', 'violation']]);
  }
});

it('a COMPLETED request whose result is a runner error falls back to the next channel', async () => {
  const taskId = await submit('video', seedance('#sim:fail-first'));
  expect((await api.untilSettled(account, 'video', taskId)).at(-1)).toMatchObject({ status: 'completed' });
  expect(await attemptsOf(taskId)).toEqual([['fal-main', 'failed'], ['fal-backup', 'completed']]);
});

it('429 is retried on the same channel after Retry-After', async () => {
  const started = Date.now();
  const taskId = await submit('video', seedance('#sim:rate-limit=1'));
  expect((await api.untilSettled(account, 'video', taskId)).at(-1)).toMatchObject({ status: 'completed' });
  expect(await attemptsOf(taskId)).toEqual([['fal-main', 'completed']]);
  expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
});

it('an expired result file (CDN 404) is no_result', async () => {
  const taskId = await submit('video', seedance('#sim:expired'));
  await expectFailed('video', taskId, 'no_result');
});

it('a signed fal webhook wakes the task at once (its channel would not poll for a minute)', async () => {
  const started = Date.now();
  const taskId = await submit('video', { model: 'video-c-3.1', variant: 'video-c-3.1-fast', prompt: `a kite (${++n} ${Date.now()})`, ratio: '16:9' });
  expect((await api.untilSettled(account, 'video', taskId, 15_000)).at(-1)).toMatchObject({ status: 'completed' });
  expect(Date.now() - started).toBeLessThan(15_000);
  expect(await attemptsOf(taskId)).toEqual([['fal-hooks', 'completed']]);
});

it('a callback whose ED25519 signature does not verify is refused and wakes nothing', async () => {
  const body = JSON.stringify({ request_id: 'forged', status: 'OK', payload: {} });
  const res = await fetch(`${stack.gatewayUrl}/hooks/upstream/fal-hooks?fal_app=fal-ai/veo3.1`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json', 'X-Fal-Webhook-Request-Id': 'forged', 'X-Fal-Webhook-User-Id': 'u',
      'X-Fal-Webhook-Timestamp': String(Math.floor(Date.now() / 1000)), 'X-Fal-Webhook-Signature': 'ab'.repeat(64),
    },
    body,
  });
  expect(res.status).toBe(401);
  expect(await res.json()).toMatchObject({ code: expect.any(String) });
});

it('a hanging render is cancelled upstream when the task times out (PUT .../cancel: the queue reports it finished)', async () => {
  const taskId = await submit('video', seedance('#sim:hang'));
  const last = (await api.untilSettled(account, 'video', taskId, 30_000)).at(-1)!;
  expect(last).toMatchObject({ status: 'failed', errorCode: 'timeout' });
  const [attempt] = await stack.db.taskAttempt.findMany({ where: { taskId } });
  await eventually('the upstream render cancelled', async () => {
    const res = await fetch(`${stack.simUrl}/fal/${attempt.upstreamId}/status`, { headers: { Authorization: 'Key fal-main-key' } });
    return ((await res.json()) as { status?: string }).status === 'COMPLETED';
  });
});

it('a COMPLETED request that made no media (422 no_media_generated) is no_result, not a fallback', async () => {
  const taskId = await submit('video', seedance('#sim:no-file'));
  await expectFailed('video', taskId, 'no_result');
  expect(await attemptsOf(taskId)).toEqual([['fal-main', 'no_result']]);
});
