// The task event stream end to end: the SDK's tasks.wait follows GET /api/tasks/{id}/events on the
// running stack (gateway, worker, simulator) and makes no poll, reporting processing and the end;
// the settlement published by the worker ends the stream with the poll body; the CLI's wait
// (progress bar) takes the same path.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { MediaGen, Task } from '@mediagen/client';
import type { Account, apiClient } from './support/api';
import type { Stack } from './support/stack';
import { e2eSuite } from './support/suite';

jest.setTimeout(60_000);

let stack: Stack;
let api: ReturnType<typeof apiClient>;
let account: Account;
e2eSuite('task-events', {}, (s) => ({ stack, api, account } = s));

function counting() {
  const urls: string[] = [];
  const f: typeof fetch = (input, init) => {
    urls.push(new URL(String(input instanceof Request ? input.url : input)).pathname);
    return fetch(input, init);
  };
  return { urls, fetch: f };
}

test('tasks.wait follows the event stream: no poll, progress reported, the terminal poll body returned', async () => {
  const c = counting();
  const mg = new MediaGen({ apiKey: account.apiKey, baseUrl: stack.gatewayUrl, fetch: c.fetch });
  const sub = await mg.videos.generate({ model: 'video-a-h3', prompt: 'a slow fox #sim:delay=1500', duration: 2, resolution: '480p' });
  const seen: Task[] = [];
  const done = await mg.tasks.wait(sub.taskId, { onProgress: (t) => seen.push(t) });
  expect(done).toMatchObject({ status: 'completed', type: 'video', resultUrls: [expect.stringMatching(/^http/)] });
  expect(seen.at(-1)).toEqual(done);
  expect(c.urls).toEqual(['/api/video/generate', `/api/tasks/${sub.taskId}/events`]);
  // The stream's terminal body is the poll body.
  const poll = await api.poll(account, 'video', sub.taskId);
  expect(poll.body).toEqual(done);
});

test('a failed task ends its stream with the failure, refunded', async () => {
  const mg = new MediaGen({ apiKey: account.apiKey, baseUrl: stack.gatewayUrl });
  const before = (await mg.balance()).balanceCents;
  const sub = await mg.images.generate({ model: 'image-c-2.1', prompt: 'a storm #sim:fail' });
  const done = await mg.tasks.wait(sub.taskId);
  expect(done).toMatchObject({ status: 'failed', errorCode: 'generation_failed', type: 'image' });
  expect((await mg.balance()).balanceCents).toBe(before);
});

test('the CLI waits on the stream (video --wait --json)', async () => {
  const bin = path.join(__dirname, '..', '..', 'node_modules', '.bin', 'mediagen');
  const r = await new Promise<{ code: number; stdout: string }>((resolve) =>
    execFile(bin, ['video', 'a fox #sim:delay=800', '--duration', '2', '--resolution', '480p', '--wait', '--json'], { env: { ...process.env, MEDIAGEN_API_KEY: account.apiKey, MEDIAGEN_BASE_URL: stack.gatewayUrl } }, (err, stdout) =>
      resolve({ code: err ? Number((err as { code?: number }).code) : 0, stdout }),
    ),
  );
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout)).toMatchObject({ status: 'completed', type: 'video' });
});
