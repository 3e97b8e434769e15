// mg.batch on a mock service: keys derived from the items (stable across runs, distinct for
// repeats, namespaced by keyPrefix), never more tasks in progress than allowed (lowered to the
// limit a 429 too_many_tasks names), 429s waited out with the same key, refusals reported per item.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { batchKeys, MediaGen } from '../src';

test('keys: the same items give the same keys; a repeated item and another prefix give new ones', () => {
  const items = [{ model: 'image-b-2.5' as const, prompt: 'a fox' }, { prompt: 'a fox', model: 'image-b-2.5' as const }, { model: 'video-a-h3' as const, prompt: 'a fox' }];
  const a = batchKeys(items);
  expect(batchKeys(items)).toEqual(a);
  expect(a[0]).toMatch(/^batch-[0-9a-f]{48}$/);
  expect(new Set(a).size).toBe(3); // identical bodies (key order aside) are two items, not one
  expect(batchKeys(items, 'run-2')[0]).not.toBe(a[0]);
  // The Python SDK derives the same key (clients/python/tests/test_batch.py checks this value).
  expect(batchKeys([{ model: 'image-b-2.5', prompt: 'a fox' }])[0]).toBe('batch-' + require('node:crypto').createHash('sha256').update('\nimage\n{"model":"image-b-2.5","prompt":"a fox"}\n0').digest('hex').slice(0, 48));
});

test('at most the allowed tasks in progress; 429 too_many_tasks lowers the limit and is waited out; refusals are per item', async () => {
  const LIMIT = 2;
  const tasks = new Map<string, { key: string; polls: number; done: boolean }>();
  let inProgress = 0;
  let maxSeen = 0;
  let refusedOnce = false;
  const server = http.createServer((req, res) => {
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      if (req.url!.endsWith('/events')) return send(404, { error: 'no streams here', code: 'not_found' });
      if (req.method === 'POST') {
        const body = JSON.parse(raw);
        if (body.prompt === 'bad') return send(400, { error: 'prompt: bad', code: 'validation_error' });
        const key = String(req.headers['idempotency-key']);
        const existing = [...tasks].find(([, t]) => t.key === key);
        if (existing) return send(200, { taskId: existing[0], generationId: existing[0], status: 'pending', costCents: 3, idempotentReplay: true });
        if (inProgress >= LIMIT) {
          refusedOnce = true;
          return send(429, { error: 'too many', code: 'too_many_tasks', maxConcurrentTasks: LIMIT, tasksInProgress: inProgress }, { 'Retry-After': '0' });
        }
        const id = `t${tasks.size + 1}`;
        tasks.set(id, { key, polls: 0, done: false });
        inProgress++;
        maxSeen = Math.max(maxSeen, inProgress);
        return send(200, { taskId: id, generationId: id, status: 'pending', costCents: 3 });
      }
      const id = decodeURIComponent(req.url!.split('/').pop()!);
      const t = tasks.get(id)!;
      if (++t.polls < 2) return send(200, { status: 'processing', progress: 50, type: 'image' });
      if (!t.done) {
        t.done = true;
        inProgress--;
      }
      send(200, { status: 'completed', resultUrls: [`https://x.test/${id}.png`], type: 'image' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const mg = new MediaGen({ apiKey: 'mg_test', baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    // No event stream on this service: each wait polls (every 5 s).
    const items = ['a', 'b', 'bad', 'c', 'd'].map((p) => ({ model: 'image-b-2.5' as const, prompt: p }));
    const progress: number[] = [];
    const out = await mg.batch(items, { concurrency: 4, onProgress: (p) => progress.push(p.done) });
    expect(out.map((o) => o.status)).toEqual(['completed', 'completed', 'refused', 'completed', 'completed']);
    expect(out[2].error).toMatchObject({ status: 400, code: 'validation_error' });
    expect(maxSeen).toBeLessThanOrEqual(LIMIT);
    expect(refusedOnce).toBe(true);
    expect(tasks.size).toBe(4);
    expect(progress.at(-1)).toBe(5);
    // A re-run (after a crash, say) creates nothing new: every key replays its task.
    const again = await mg.batch(items, { concurrency: 4 });
    expect(tasks.size).toBe(4);
    expect(again.map((o) => o.taskId)).toEqual(out.map((o) => o.taskId));
  } finally {
    server.close();
  }
}, 60_000);
