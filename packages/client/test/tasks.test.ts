// tasks.list follows nextCursor page by page; tasks.wait waits out a 429's Retry-After instead of
// failing, reports progress changes once each, and finds an image task's kind by itself.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MediaGen } from '../src';

async function serve(handler: (req: http.IncomingMessage, res: http.ServerResponse, n: number) => void) {
  const seen: { url: string; at: number }[] = [];
  const server = http.createServer((req, res) => {
    seen.push({ url: req.url ?? '', at: Date.now() });
    handler(req, res, seen.length);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { seen, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}
const send = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};
const item = (taskId: string) => ({ taskId, status: 'completed', type: 'image', model: 'image-b-2.5', createdAt: '2026-01-01T00:00:00Z', resultUrls: [] });

test('list yields one page per request, passing nextCursor back as cursor', async () => {
  const srv = await serve((req, res) => {
    const cursor = new URL(req.url!, 'http://x').searchParams.get('cursor');
    if (!cursor) return send(res, 200, { data: [item('t3'), item('t2')], nextCursor: 'c1' });
    if (cursor === 'c1') return send(res, 200, { data: [item('t1')], nextCursor: null });
    send(res, 400, { error: 'bad cursor', code: 'invalid_cursor' });
  });
  try {
    const mg = new MediaGen({ apiKey: 'mg_test', baseUrl: srv.url });
    const pages: string[][] = [];
    for await (const p of mg.tasks.list({ status: 'completed', limit: 2 })) pages.push(p.data.map((t) => t.taskId));
    expect(pages).toEqual([['t3', 't2'], ['t1']]);
    expect(srv.seen.map((s) => s.url)).toEqual(['/api/tasks?status=completed&limit=2', '/api/tasks?status=completed&limit=2&cursor=c1']);
  } finally {
    await srv.close();
  }
});

test('wait finds the kind, waits out Retry-After on a 429, and reports each change once', async () => {
  const srv = await serve((req, res, n) => {
    if (req.url!.startsWith('/api/video/')) return send(res, 404, { error: 'Task t not found', code: 'not_found' });
    if (n === 2) return send(res, 200, { status: 'processing', progress: 50, type: 'image' });
    if (n === 3) return send(res, 429, { error: 'slow down', code: 'rate_limited' }, { 'Retry-After': '1' });
    send(res, 200, { status: 'completed', resultUrls: ['https://x.test/f.png'], type: 'image' });
  });
  try {
    const mg = new MediaGen({ apiKey: 'mg_test', baseUrl: srv.url });
    const progress: string[] = [];
    const done = await mg.tasks.wait('t', { stream: false, onProgress: (t) => progress.push(t.status) });
    expect(done.status).toBe('completed');
    expect(progress).toEqual(['processing', 'completed']);
    expect(srv.seen.map((s) => s.url)).toEqual(['/api/video/tasks/t', '/api/image/tasks/t', '/api/image/tasks/t', '/api/image/tasks/t']);
    // The poll after "processing" came no sooner than 5 s; the one after the 429 no sooner than its Retry-After.
    expect(srv.seen[2].at - srv.seen[1].at).toBeGreaterThanOrEqual(4_990);
    expect(srv.seen[3].at - srv.seen[2].at).toBeGreaterThanOrEqual(990);
  } finally {
    await srv.close();
  }
}, 20_000);

test('retrieve reads one task with its effectivePrompt and remembers its kind for later polls', async () => {
  const srv = await serve((req, res) => {
    if (req.url === '/api/tasks/t9') return send(res, 200, { ...item('t9'), type: 'video', model: 'video-a-h3', effectivePrompt: 'Subjects:\n- Fox: a fox' });
    if (req.url === '/api/video/tasks/t9') return send(res, 200, { status: 'completed', type: 'video', resultUrls: [] });
    send(res, 404, { error: 'not found', code: 'not_found' });
  });
  try {
    const mg = new MediaGen({ apiKey: 'mg_test', baseUrl: srv.url });
    expect(await mg.tasks.retrieve('t9')).toMatchObject({ taskId: 't9', effectivePrompt: 'Subjects:\n- Fox: a fox' });
    await mg.tasks.get('t9');
    expect(srv.seen.map((s) => s.url)).toEqual(['/api/tasks/t9', '/api/video/tasks/t9']);
  } finally {
    await srv.close();
  }
});

const sse = (res: http.ServerResponse, blocks: string[], end = true) => {
  res.writeHead(200, { 'Content-Type': 'text/event-stream' });
  for (const b of blocks) res.write(b);
  if (end) res.end();
};

test('wait follows the event stream: each event reported, the done event returned, no poll made', async () => {
  const srv = await serve((req, res) =>
    sse(res, [
      'retry: 3000\n\n',
      'id: 1040\r\nevent: status\r\ndata: {"status":"processing","progress":40,"type":"video"}\r\n\r\n',
      ': heartbeat\n\n',
      'id: 2000\nevent: done\ndata: {"status":"completed","resultUrls":["https://x.test/v.mp4"],"type":"video"}\n\n',
    ]),
  );
  try {
    const mg = new MediaGen({ apiKey: 'mg_test', baseUrl: srv.url });
    const seen: string[] = [];
    const done = await mg.tasks.wait('t/1', { onProgress: (t) => seen.push(`${t.status}:${t.progress ?? ''}`) });
    expect(done).toEqual({ status: 'completed', resultUrls: ['https://x.test/v.mp4'], type: 'video' });
    expect(seen).toEqual(['processing:40', 'completed:']);
    expect(srv.seen.map((s) => s.url)).toEqual(['/api/tasks/t%2F1/events']);
  } finally {
    await srv.close();
  }
});

test('a stream that ends early is resumed with Last-Event-ID; a service without streams is polled', async () => {
  const lastIds: (string | undefined)[] = [];
  const srv = await serve((req, res, n) => {
    if (req.url!.endsWith('/events')) {
      lastIds.push(req.headers['last-event-id'] as string | undefined);
      if (n === 1) return sse(res, ['id: 1020\nevent: status\ndata: {"status":"processing","progress":20,"type":"image"}\n\n']);
      return sse(res, ['id: 2000\nevent: done\ndata: {"status":"failed","errorCode":"timeout","retryable":true,"type":"image"}\n\n']);
    }
    send(res, 500, { error: 'unexpected', code: 'internal_error' });
  });
  const old = await serve((req, res) => {
    if (req.url!.endsWith('/events')) return send(res, 404, { error: 'Not found', code: 'not_found' });
    send(res, 200, { status: 'completed', resultUrls: [], type: 'image' });
  });
  try {
    const done = await new MediaGen({ apiKey: 'mg_test', baseUrl: srv.url }).tasks.wait('t');
    expect(done).toMatchObject({ status: 'failed', errorCode: 'timeout' });
    expect(lastIds).toEqual([undefined, '1020']);
    const polled = await new MediaGen({ apiKey: 'mg_test', baseUrl: old.url }).tasks.wait('t', { type: 'image' });
    expect(polled.status).toBe('completed');
    expect(old.seen.map((s) => s.url)).toEqual(['/api/tasks/t/events', '/api/image/tasks/t']);
  } finally {
    await srv.close();
    await old.close();
  }
});
