// The SDK (@mediagen/client) against the running stack: tasks.wait on each outcome (completed,
// failed, stopped by its signal), typed errors with the 402 fields, and a generate call whose
// first answer is lost on the way back: the SDK retries with the same idempotency key, gets the
// same task back, and the account is charged once.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { InsufficientBalanceError, MediaGen, AuthenticationError, Task } from '@mediagen/client';
import { Account, apiClient } from './support/api';
import type { Stack } from './support/stack';
import { e2eSuite } from './support/suite';

jest.setTimeout(60_000);

let stack: Stack;
let api: ReturnType<typeof apiClient>;
let account: Account;
let mg: MediaGen;

e2eSuite('sdk', {}, (s) => {
  ({ stack, api, account } = s);
  mg = new MediaGen({ apiKey: account.apiKey, baseUrl: stack.gatewayUrl });
});

const video = (prompt: string) => ({ model: 'video-a-h3' as const, prompt, duration: 2, resolution: '480p' as const, ratio: '16:9' as const });

describe('tasks.wait', () => {
  it('returns the completed task, reporting progress on the way, polling no faster than every 5 s', async () => {
    const sub = await mg.videos.generate(video('a lighthouse at dusk'));
    const seen: Task[] = [];
    const started = Date.now();
    const done = await mg.tasks.wait(sub.taskId, { stream: false, onProgress: (t) => seen.push(t) });
    expect(done).toMatchObject({ status: 'completed', type: 'video', resultUrls: [expect.stringMatching(/^http/)] });
    expect(seen.at(-1)).toEqual(done);
    expect(seen.length).toBeGreaterThanOrEqual(2); // a first poll before completion, then the end
    expect(Date.now() - started).toBeGreaterThanOrEqual(5_000);
    const file = await api.fetchFile(done.resultUrls![0]);
    expect(file.status).toBe(200);
  });

  it('returns a failed task (not thrown) with its errorCode, and it was refunded', async () => {
    const before = (await mg.balance()).balanceCents;
    const sub = await mg.videos.generate(video('a storm #sim:fail'));
    const done = await mg.tasks.wait(sub.taskId);
    expect(done).toMatchObject({ status: 'failed', errorCode: 'generation_failed', retryable: true, type: 'video' });
    expect((await mg.balance()).balanceCents).toBe(before);
  });

  it('stops with the signal\'s reason when the signal aborts (a timeout) while the task goes on', async () => {
    const sub = await mg.videos.generate(video('a long wait #sim:hang'));
    const err = await mg.tasks.wait(sub.taskId, { signal: AbortSignal.timeout(1_500) }).catch((e) => e);
    expect(err).toMatchObject({ name: 'TimeoutError' });
    expect((await mg.tasks.get(sub.taskId)).status).not.toMatch(/completed|failed/);
  });
});

describe('resources and errors', () => {
  it('images.generate, tasks.get (kind found without a hint) and balance()', async () => {
    const sub = await mg.images.generate({ model: 'image-b-2.5', prompt: 'a red fox', ratio: '16:9' });
    const fresh = new MediaGen({ apiKey: account.apiKey, baseUrl: stack.gatewayUrl }); // knows nothing of the task
    expect((await fresh.tasks.get(sub.taskId)).type).toBe('image');
    const b = await mg.balance();
    expect(b).toEqual({ balanceCents: expect.any(Number), topUpUrl: expect.any(String) });
  });

  it('a 402 is an InsufficientBalanceError with costCents, balanceCents and topUpUrl; a bad key an AuthenticationError', async () => {
    const poor = await api.newAccount(1);
    const client = new MediaGen({ apiKey: poor.apiKey, baseUrl: stack.gatewayUrl });
    const err = await client.videos.generate({ ...video('a fox'), duration: 10 }).catch((e) => e);
    expect(err).toBeInstanceOf(InsufficientBalanceError);
    expect(err).toMatchObject({ status: 402, code: 'insufficient_balance', balanceCents: 1, costCents: expect.any(Number), topUpUrl: expect.any(String) });
    expect(err.costCents).toBeGreaterThan(1);
    const bad = await new MediaGen({ apiKey: 'mg_' + 'x'.repeat(40), baseUrl: stack.gatewayUrl }).balance().catch((e) => e);
    expect(bad).toBeInstanceOf(AuthenticationError);
    expect(bad.code).toBe('unauthorized');
  });
});

describe('a lost answer', () => {
  it('is retried with the same idempotency key: the same task comes back and one charge is made', async () => {
    // A proxy that forwards the first submit to the gateway, lets it commit, and then drops the
    // connection instead of answering; everything else passes through.
    const keys: string[] = [];
    let dropped = false;
    const proxy = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      if (req.url?.endsWith('/generate')) keys.push(String(req.headers['idempotency-key']));
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k))) as Record<string, string>;
      const upstream = await fetch(stack.gatewayUrl + req.url, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
      const body = Buffer.from(await upstream.arrayBuffer());
      if (req.url?.endsWith('/generate') && !dropped) {
        dropped = true;
        req.socket.destroy();
        return;
      }
      res.writeHead(upstream.status, { 'Content-Type': upstream.headers.get('content-type') ?? 'application/json' });
      res.end(body);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    try {
      const viaProxy = new MediaGen({ apiKey: account.apiKey, baseUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` });
      const sub = await viaProxy.videos.generate(video('a fox crossing a road'));
      expect(dropped).toBe(true);
      expect(keys).toHaveLength(2);
      expect(keys[0]).toBe(keys[1]);
      expect(sub.idempotentReplay).toBe(true);
      const charges = await stack.db.ledgerEntry.findMany({ where: { taskId: sub.taskId, kind: 'charge' } });
      expect(charges).toHaveLength(1);
      expect(await stack.db.task.count({ where: { accountId: account.accountId, params: { path: ['prompt'], equals: 'a fox crossing a road' } } })).toBe(1);
    } finally {
      await new Promise<void>((r) => proxy.close(() => r()));
    }
  });
});
