// A generate call keeps one idempotency key across its own retries: after a lost answer (the
// connection dropped), a 409 in progress, a 429 with Retry-After and a 5xx, every attempt the
// server sees carries the same Idempotency-Key. A fake server answers badly first, then well.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { InsufficientBalanceError, MediaGen, BadRequestError, RateLimitError } from '../src';

interface Seen { key: string | undefined; path: string }
type Step = (req: http.IncomingMessage, res: http.ServerResponse) => void;

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Step => (_req, res) => {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};
const drop: Step = (req) => req.socket.destroy();
const accepted = json(200, { taskId: 'tsk_1', generationId: 'tsk_1', status: 'pending' });

async function fakeServer(steps: Step[]) {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push({ key: req.headers['idempotency-key'] as string | undefined, path: req.url ?? '' });
      (steps[seen.length - 1] ?? accepted)(req, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { seen, url, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const params = { model: 'image-b-2.5' as const, prompt: 'a fox' };

test.each([
  ['a dropped connection', [drop]],
  ['409 idempotency_in_progress', [json(409, { error: 'in progress', code: 'idempotency_in_progress' }, { 'Retry-After': '0' })]],
  ['429 with Retry-After', [json(429, { error: 'slow down', code: 'rate_limited' }, { 'Retry-After': '1' })]],
  ['500 then 503', [json(500, { error: 'boom', code: 'internal_error' }), json(503, { error: 'queue down', code: 'service_unavailable' })]],
])('retries after %s with the same Idempotency-Key', async (_name, steps) => {
  const srv = await fakeServer(steps as Step[]);
  try {
    const mg = new MediaGen({ apiKey: 'mg_test', baseUrl: srv.url });
    const task = await mg.images.generate(params);
    expect(task).toMatchObject({ taskId: 'tsk_1', type: 'image' });
    expect(srv.seen.length).toBe((steps as Step[]).length + 1);
    const keys = new Set(srv.seen.map((s) => s.key));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/^[0-9a-f-]{36}$/);
  } finally {
    await srv.close();
  }
}, 20_000);

test('a caller-chosen key is used; separate calls get separate keys', async () => {
  const srv = await fakeServer([]);
  try {
    const mg = new MediaGen({ apiKey: 'mg_test', baseUrl: srv.url });
    await mg.images.generate(params, { idempotencyKey: 'batch-7-item-42' });
    await mg.images.generate(params);
    await mg.images.generate(params);
    expect(srv.seen[0].key).toBe('batch-7-item-42');
    expect(srv.seen[1].key).not.toBe(srv.seen[2].key);
  } finally {
    await srv.close();
  }
});

test('refusals are not retried and are typed by code, 402 with its fields', async () => {
  const srv = await fakeServer([
    json(402, { error: 'Insufficient balance', code: 'insufficient_balance', costCents: 4, balanceCents: 2, topUpUrl: 'https://x.test/top-up' }),
    json(400, { error: 'duration: too long', code: 'validation_error', details: [{ path: 'duration', message: 'too long' }] }),
    json(429, { error: 'too many', code: 'too_many_tasks' }, { 'Retry-After': '3600' }),
  ]);
  try {
    const mg = new MediaGen({ apiKey: 'mg_test', baseUrl: srv.url });
    const e402 = await mg.images.generate(params).catch((e) => e);
    expect(e402).toBeInstanceOf(InsufficientBalanceError);
    expect(e402).toMatchObject({ status: 402, code: 'insufficient_balance', costCents: 4, balanceCents: 2, topUpUrl: 'https://x.test/top-up' });
    const e400 = await mg.images.generate(params).catch((e) => e);
    expect(e400).toBeInstanceOf(BadRequestError);
    expect(e400.details).toEqual([{ path: 'duration', message: 'too long' }]);
    // A Retry-After beyond maxRetryAfterSeconds is handed to the caller rather than slept through.
    const e429 = await mg.images.generate(params).catch((e) => e);
    expect(e429).toBeInstanceOf(RateLimitError);
    expect(e429).toMatchObject({ code: 'too_many_tasks', retryAfterSeconds: 3600 });
    expect(srv.seen.length).toBe(3);
  } finally {
    await srv.close();
  }
});
