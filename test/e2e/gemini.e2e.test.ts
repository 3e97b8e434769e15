// The `gemini` protocol end to end: gateway, worker and the simulator speaking the Gemini API
// (Veo long-running operations, synchronous Gemini images), on real Postgres and Redis. Each
// refusal arrives in Gemini's own signal; the task outcome, its attempts and the ledger are checked.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';
import { Account, apiClient } from './support/api';
import { freePort } from './support/processes';
import type { Stack } from './support/stack';
import { e2eSuite } from './support/suite';
import { taskChecks } from './support/task-checks';

jest.setTimeout(60_000);

let stack: Stack;
let api: ReturnType<typeof apiClient>;
let account: Account;
let dir: string;

const VEO = { 'video-c-3.1-fast': 'veo-3.1-fast-generate-001', 'video-c-3.1-pro': 'veo-3.1-generate-001', 'video-c-3.1-components': 'veo-3.1-generate-001' };
const IMAGES = { 'image-d-3.1-flash-image-preview': 'gemini-3.1-flash-image', 'image-d-3-pro-image-preview': 'gemini-3-pro-image' };

e2eSuite(
  'gemini',
  {
    stack: async () => {
      const simPort = await freePort();
      const base = `http://127.0.0.1:${simPort}/gemini/v1beta`;
      const poll = { firstMs: 100, minMs: 200, maxMs: 1000 };
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-gemini-'));
      fs.writeFileSync(path.join(dir, 'channels.json'), JSON.stringify({
        channels: [
          { id: 'gemini-main', protocol: 'gemini', baseUrl: base, apiKey: 'gem-main-key', costOrder: 10, reportsViolations: true, models: { ...VEO, ...IMAGES }, poll },
          { id: 'gemini-backup', protocol: 'gemini', baseUrl: base, apiKey: 'gem-backup-key', costOrder: 20, reportsViolations: true, models: { ...VEO, ...IMAGES }, poll },
        ],
      }));
      return { env: { PROVIDER_CONFIG: path.join(dir, 'channels.json'), SIM_PORT: String(simPort), SIM_RENDER_MS: '200' } };
    },
  },
  (s) => ({ stack, api, account } = s),
);
afterAll(() => dir && fs.rmSync(dir, { recursive: true, force: true }));

let n = 0;
/** Prompts are unique per test: the simulator groups a Gemini task's calls by its prompt. */
const veo = (prompt: string, variant = 'video-c-3.1-fast') => ({ model: 'video-c-3.1', variant, prompt: `${prompt} (${++n} ${Date.now()})`, ratio: '9:16' });
const image = (prompt: string, model = 'image-d-3-pro-image-preview') => ({ model, prompt: `${prompt} (${++n} ${Date.now()})`, ratio: '16:9' });

const { submit, closedAttempts, attemptsOf, ledgerOf, expectFailed } = taskChecks(() => ({ stack, api, account }));

it('Veo: completes with the MP4 it downloaded with the key', async () => {
  const taskId = await submit('video', veo('a lighthouse at dusk'));
  const last = (await api.untilSettled(account, 'video', taskId)).at(-1)!;
  expect(last).toMatchObject({ status: 'completed', resultUrls: [expect.stringContaining(`/files/results/${taskId}/0.mp4`)] });
  const file = await api.fetchFile((last.resultUrls as string[])[0]);
  expect(file.headers.get('content-type')).toBe('video/mp4');
  expect(file.bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
  expect(await attemptsOf(taskId)).toEqual([['gemini-main', 'completed']]);
  expect(await ledgerOf(taskId)).toEqual(['charge']);
});

it('Gemini image, answers at once: completed from the submit with the inline PNG at the requested ratio, tokens recorded', async () => {
  const res = await api.submit(account, 'image', image('a teapot', 'image-d-3.1-flash-image-preview'));
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ status: 'completed', resultUrls: [expect.stringContaining('/files/results/')] });
  const png = PNG.sync.read((await api.fetchFile((res.body.resultUrls as string[])[0])).bytes);
  expect([png.width, png.height]).toEqual([1024, 576]);
  const [attempt] = await closedAttempts(String(res.body.taskId));
  expect([attempt.status, attempt.usageUnits, attempt.usageAmount]).toEqual(['completed', 'tokens', 1302]);
});

it('each refusal signal is a content_violation, refunded, with no fallback', async () => {
  const cases: Array<['video' | 'image', Record<string, unknown>]> = [
    ['video', veo('#sim:violation')], // done with raiMediaFilteredCount and no samples
    ['video', veo('#sim:violation-input')], // 400 INVALID_ARGUMENT quoting a support code
    ['image', image('#sim:violation')], // finishReason IMAGE_SAFETY
    ['image', image('#sim:violation-input')], // promptFeedback.blockReason
  ];
  for (const [kind, body] of cases) {
    const taskId = await submit(kind, body);
    await expectFailed(kind, taskId, 'content_violation');
    expect(await attemptsOf(taskId)).toEqual([['gemini-main', 'violation']]);
  }
});

it('a failed render (operation error; an image answer with only text) falls back to the next channel', async () => {
  const taskId = await submit('video', veo('#sim:fail-first'));
  expect((await api.untilSettled(account, 'video', taskId)).at(-1)).toMatchObject({ status: 'completed' });
  expect(await attemptsOf(taskId)).toEqual([['gemini-main', 'failed'], ['gemini-backup', 'completed']]);
  const imageTask = await submit('image', image('#sim:fail-first'));
  expect((await api.untilSettled(account, 'image', imageTask)).at(-1)).toMatchObject({ status: 'completed' });
  expect(await attemptsOf(imageTask)).toEqual([['gemini-main', 'failed'], ['gemini-backup', 'completed']]);
});

it('429 RESOURCE_EXHAUSTED is retried on the same channel after RetryInfo.retryDelay', async () => {
  const started = Date.now();
  const taskId = await submit('video', veo('#sim:rate-limit=1'));
  expect((await api.untilSettled(account, 'video', taskId)).at(-1)).toMatchObject({ status: 'completed' });
  expect(await attemptsOf(taskId)).toEqual([['gemini-main', 'completed']]);
  // The simulator's retryDelay is 1s: the worker waited for it before the second submit.
  expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
});

it('an expired Veo file (download 404) is no_result', async () => {
  const taskId = await submit('video', veo('#sim:expired'));
  await expectFailed('video', taskId, 'no_result');
});

it('success without a file (done with zero samples; STOP without parts) is no_result, not a fallback', async () => {
  for (const [kind, body] of [['video', veo('#sim:no-file')], ['image', image('#sim:no-file')]] as const) {
    const taskId = await submit(kind, body);
    await expectFailed(kind, taskId, 'no_result');
    expect(await attemptsOf(taskId)).toEqual([['gemini-main', 'no_result']]);
  }
});
