// The SDK's calls of the extensions (docs/api.md) against the running stack: tasks.list
// pages through the account's tasks newest first with filters, and tasks.cancel ends a running
// task `cancelled` and refunded, and refuses a finished one with a typed not_cancellable error;
// the CLI's `tasks` lists them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConflictError, MediaGen } from '@mediagen/client';
import { freePort } from './support/processes';
import { Account, apiClient } from './support/api';
import type { Stack } from './support/stack';
import { e2eSuite } from './support/suite';

jest.setTimeout(60_000);

let stack: Stack;
let api: ReturnType<typeof apiClient>;
let account: Account;
let mg: MediaGen;

let dir: string | undefined;
// video-a-h3 renders on a MiniMax-protocol channel, which can cancel a running render upstream;
// images on the simulator's own protocol.
e2eSuite(
  'sdk_ext',
  {
    stack: async () => {
      const simPort = await freePort();
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-sdk-ext-'));
      const poll = { firstMs: 100, minMs: 200, maxMs: 1000 };
      fs.writeFileSync(path.join(dir, 'channels.json'), JSON.stringify({
        channels: [
          { id: 'mm', protocol: 'minimax', baseUrl: `http://127.0.0.1:${simPort}/minimax`, apiKey: 'mm-key', costOrder: 10, models: { 'video-a-h3': 'MiniMax-H3' }, effortModels: { '1.5x': 'MiniMax-H3', '2x': 'MiniMax-H3-Max' }, poll },
          { id: 'img', baseUrl: `http://127.0.0.1:${simPort}/ch/img`, apiKey: 'k', costOrder: 10, models: { 'image-b-2.5': 'sim/image-b-2.5' }, poll },
        ],
      }));
      return { env: { PROVIDER_CONFIG: path.join(dir, 'channels.json'), SIM_PORT: String(simPort), CANCEL_WAIT_MS: '8000' } };
    },
  },
  (s) => {
    ({ stack, api, account } = s);
    mg = new MediaGen({ apiKey: account.apiKey, baseUrl: stack.gatewayUrl });
  },
);
afterAll(() => dir && fs.rmSync(dir, { recursive: true, force: true }));

const video = (prompt: string) => ({ model: 'video-a-h3' as const, prompt, duration: 2, resolution: '480p' as const });

test('tasks.list iterates pages newest first, with filters', async () => {
  const own = await api.newAccount(10_000);
  const client = new MediaGen({ apiKey: own.apiKey, baseUrl: stack.gatewayUrl });
  const ids: string[] = [];
  for (const prompt of ['one', 'two', 'three']) ids.push((await client.images.generate({ model: 'image-b-2.5', prompt })).taskId);
  ids.push((await client.videos.generate(video('four'))).taskId);
  const pages: string[][] = [];
  for await (const page of client.tasks.list({ limit: 2 })) pages.push(page.data.map((t) => t.taskId));
  expect(pages.map((p) => p.length)).toEqual([2, 2]);
  expect(pages.flat()).toEqual([...ids].reverse());
  const images: string[] = [];
  for await (const page of client.tasks.list({ type: 'image' })) images.push(...page.data.map((t) => t.taskId));
  expect(images).toEqual(ids.slice(0, 3).reverse());
  // A listed task's kind is known: get() needs no probe.
  const [first] = (await client.tasks.list({ limit: 1 }).next()).value!.data;
  expect(first).toMatchObject({ taskId: ids[3], model: 'video-a-h3', type: 'video', createdAt: expect.any(String) });
});

test('tasks.cancel ends a running task cancelled and refunded; a finished one is a ConflictError not_cancellable', async () => {
  const before = (await mg.balance()).balanceCents;
  const sub = await mg.videos.generate(video('a render that takes long #sim:delay=30000'));
  const answer = await mg.tasks.cancel(sub.taskId);
  const final = answer.status === 'failed' ? answer : await mg.tasks.wait(sub.taskId, { signal: AbortSignal.timeout(30_000) });
  expect(final).toMatchObject({ status: 'failed', errorCode: 'cancelled', retryable: false });
  expect((await mg.balance()).balanceCents).toBe(before);

  const done = await mg.images.generate({ model: 'image-b-2.5', prompt: 'a finished fox' });
  await mg.tasks.wait(done.taskId);
  const err = await mg.tasks.cancel(done.taskId).catch((e) => e);
  expect(err).toBeInstanceOf(ConflictError);
  expect(err).toMatchObject({ status: 409, code: 'not_cancellable' });
});

test('the CLI lists the tasks and cancels one', async () => {
  const { execFile } = await import('node:child_process');
  const bin = path.join(__dirname, '..', '..', 'node_modules', '.bin', 'mediagen');
  const mediagen = (args: string[]) =>
    new Promise<{ code: number; stdout: string }>((resolve) =>
      execFile(bin, args, { env: { ...process.env, MEDIAGEN_API_KEY: account.apiKey, MEDIAGEN_BASE_URL: stack.gatewayUrl } }, (err, stdout) =>
        resolve({ code: err ? Number((err as { code?: number }).code) : 0, stdout }),
      ),
    );
  const sub = await mg.videos.generate(video('another long render #sim:delay=30000'));
  const listed = await mediagen(['tasks', '--type', 'video', '--limit', '1', '--json']);
  expect(listed.code).toBe(0);
  expect(JSON.parse(listed.stdout).data[0]).toMatchObject({ taskId: sub.taskId, type: 'video', model: 'video-a-h3' });
  const cancelled = await mediagen(['cancel', sub.taskId, '--json']);
  expect(cancelled.code).toBe(0);
  expect(JSON.parse(cancelled.stdout)).toMatchObject({ taskId: sub.taskId });
  const final = await mg.tasks.wait(sub.taskId, { signal: AbortSignal.timeout(30_000) });
  expect(final).toMatchObject({ status: 'failed', errorCode: 'cancelled' });
});
