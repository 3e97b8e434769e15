// A cancel that arrives while the submit request is in flight (sent, no answer yet): the provider
// may already render and bill it, so it is treated as accepted, never refunded as if nothing had
// started. Channels: Gemini images (synchronous, no cancel), Seedream images on ModelArk
// (synchronous, the protocol has cancel) and MiniMax video (asynchronous, with cancel), each with a
// slow submit in the simulator. Every case checks the answer, the task's end and its ledger.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Account, apiClient } from './support/api';
import { freePort } from './support/processes';
import type { Stack } from './support/stack';
import { e2eSuite } from './support/suite';
import { waitFor } from './support/wait';

jest.setTimeout(90_000);

let stack: Stack;
let api: ReturnType<typeof apiClient>;
let account: Account;
let dir: string;

e2eSuite(
  'cancel_in_flight',
  {
    balanceCents: 100_000,
    stack: async () => {
      const simPort = await freePort();
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-cancel-flight-'));
      const poll = { firstMs: 100, minMs: 200, maxMs: 1000 };
      const sim = `http://127.0.0.1:${simPort}`;
      fs.writeFileSync(path.join(dir, 'channels.json'), JSON.stringify({
        channels: [
          { id: 'gem', protocol: 'gemini', baseUrl: `${sim}/gemini/v1beta`, apiKey: 'gem-key', costOrder: 10, models: { 'image-d-3-pro-image-preview': 'gemini-3-pro-image' }, poll },
          { id: 'ark', protocol: 'modelark', baseUrl: `${sim}/modelark/api/v3`, apiKey: 'ark-key', costOrder: 10, models: { 'image-b-2.5': 'seedream-4-5-251128' }, poll },
          { id: 'mm', protocol: 'minimax', baseUrl: `${sim}/minimax`, apiKey: 'mm-key', costOrder: 10, models: { 'video-a-h3': 'MiniMax-H3' }, effortModels: { '1.5x': 'MiniMax-H3', '2x': 'MiniMax-H3-Max' }, poll },
        ],
      }));
      return { env: { PROVIDER_CONFIG: path.join(dir, 'channels.json'), SIM_PORT: String(simPort), CANCEL_WAIT_MS: '8000', INSTANT_WAIT_MS: '0' } };
    },
  },
  (s) => ({ stack, api, account } = s),
);
afterAll(() => dir && fs.rmSync(dir, { recursive: true, force: true }));

let n = 0;
const unique = (prompt: string) => `${prompt} (${++n} ${Date.now()})`;

async function submit(kind: 'video' | 'image', body: Record<string, unknown>): Promise<string> {
  const res = await api.submit(account, kind, body);
  if (res.status !== 200) throw new Error(`submit: ${res.status} ${JSON.stringify(res.body)}`);
  return String(res.body.taskId);
}

const ledgerOf = async (taskId: string) => (await stack.db.ledgerEntry.findMany({ where: { taskId }, orderBy: { createdAt: 'asc' } })).map((r) => r.kind);

/** Until the worker has sent the submit and the provider has not answered it yet. */
async function inFlight(taskId: string): Promise<void> {
  await waitFor(async () => (await stack.db.taskAttempt.findFirst({ where: { taskId, submitSentAt: { not: null }, upstreamId: null, status: 'submitting' } })) !== null, 15_000, 'the submit in flight');
}

it('a synchronous image on a provider without cancel: 409 not_cancellable, and it completes and stays charged', async () => {
  const taskId = await submit('image', { model: 'image-d-3-pro-image-preview', prompt: unique('a lighthouse #sim:delay=4000'), ratio: '16:9' });
  await inFlight(taskId);
  const res = await api.cancel(account, 'image', taskId);
  expect(res.status).toBe(409);
  expect(res.body.code).toBe('not_cancellable');
  const last = (await api.untilSettled(account, 'image', taskId)).at(-1)!;
  expect(last).toMatchObject({ status: 'completed', resultUrls: [expect.stringContaining(`/files/results/${taskId}/`)] });
  expect(await ledgerOf(taskId)).toEqual(['charge']);
});

it('a synchronous image on a provider with cancel: the cancel waits for the submit, which brings the finished image: completed and charged', async () => {
  const taskId = await submit('image', { model: 'image-b-2.5', prompt: unique('a teapot #sim:delay=3000'), ratio: '4:3', resolution: '1k' });
  await inFlight(taskId);
  const res = await api.cancel(account, 'image', taskId);
  expect(res.status).toBe(409);
  expect(res.body).toMatchObject({ code: 'not_cancellable', error: expect.stringContaining('finished (completed)') });
  const last = (await api.untilSettled(account, 'image', taskId)).at(-1)!;
  expect(last).toMatchObject({ status: 'completed', resultUrls: [expect.any(String)] });
  expect(await ledgerOf(taskId)).toEqual(['charge']);
});

it('an asynchronous render with cancel: recorded while the submit is in flight, cancelled at the provider once it answers, then refunded', async () => {
  const taskId = await submit('video', { model: 'video-a-h3', prompt: unique('the sea #sim:slow-submit=2500 #sim:delay=30000'), duration: 2, resolution: '480p' });
  await inFlight(taskId);
  const res = await api.cancel(account, 'video', taskId);
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ taskId, status: 'failed', errorCode: 'cancelled' });
  expect(await ledgerOf(taskId)).toEqual(['charge', 'refund']);
  // The render the provider accepted was stopped there, not left to run (and bill) on its own.
  await waitFor(async () => (await stack.db.taskAttempt.findFirst({ where: { taskId } }))?.status === 'abandoned', 5_000, 'the attempt closed');
  const attempt = await stack.db.taskAttempt.findFirst({ where: { taskId } });
  expect(attempt!.upstreamId).toEqual(expect.any(String));
  const upstream = await fetch(`${stack.simUrl}/minimax/v2/query/video_generation/${attempt!.upstreamId}`, { headers: { Authorization: 'Bearer mm-key' } });
  expect(((await upstream.json()) as { task: { status: string } }).task.status).toBe('cancelled');
});
