// GET /api/tasks/{taskId}/events (services/task-streams.ts) on a listening gateway over real
// Postgres and Redis: the current state first, status and progress changes, the terminal event
// with the poll body and the end; Last-Event-ID resumes without repeats; heartbeats; 404 for
// another account's task; the per-account cap; a client that never reads is cut.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventEmitter } from 'node:events';
import type express from 'express';
import request from 'supertest';
import { encodeTaskEvent } from '@mediagen/queue';
import { markProcessing, updateProgress } from '@mediagen/db';
import { TaskStreams } from '../src/services/task-streams';
import { startHarness, Harness } from './harness';
import { waitFor } from '../../../test/e2e/support/wait';

jest.setTimeout(60_000);

let h: Harness;
let server: http.Server;
let base: string;
beforeAll(async () => {
  h = await startHarness('sse', { INSTANT_WAIT_MS: '0', SSE_REFRESH_MS: '100', SSE_HEARTBEAT_MS: '300', SSE_MAX_STREAMS_PER_ACCOUNT: '2', SSE_BUFFER_BYTES: '1024' });
  server = h.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await h.close();
});

interface SseEvent {
  id?: string;
  event?: string;
  data?: unknown;
}

/** An open event stream: its parsed events, comments, and whether the server ended it. */
function open(taskId: string, auth: Record<string, string>, headers: Record<string, string> = {}) {
  const events: SseEvent[] = [];
  const comments: string[] = [];
  const state = { status: 0, headers: {} as http.IncomingHttpHeaders, ended: false, body: '' };
  const changed = new EventEmitter();
  const req = http.get(`${base}/api/tasks/${encodeURIComponent(taskId)}/events`, { headers: { ...auth, Accept: 'text/event-stream', ...headers } }, (res) => {
    state.status = res.statusCode ?? 0;
    state.headers = res.headers;
    let buf = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      state.body += chunk;
      buf += chunk;
      let i: number;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const ev: SseEvent = {};
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) comments.push(line.slice(1).trim());
          else if (line.startsWith('id: ')) ev.id = line.slice(4);
          else if (line.startsWith('event: ')) ev.event = line.slice(7);
          else if (line.startsWith('data: ')) ev.data = JSON.parse(line.slice(6));
        }
        if (ev.event) events.push(ev);
      }
      changed.emit('change');
    });
    res.on('end', () => {
      state.ended = true;
      changed.emit('change');
    });
  });
  req.on('error', () => undefined);
  const until = (cond: () => boolean, ms = 10_000) =>
    new Promise<void>((resolve, reject) => {
      if (cond()) return resolve();
      const t = setTimeout(() => reject(new Error(`timed out; events ${JSON.stringify(events)} ended ${state.ended}`)), ms);
      const check = () => {
        if (cond()) {
          clearTimeout(t);
          changed.off('change', check);
          resolve();
        }
      };
      changed.on('change', check);
    });
  return { events, comments, state, until, close: () => req.destroy() };
}

const submit = async (auth: Record<string, string>) =>
  (await request(h.app).post('/api/video/generate').set(auth).send({ model: 'video-a-h3', prompt: 'p', resolution: '480p', duration: 2 }).expect(200)).body.taskId as string;

async function settle(taskId: string, accountId: string, withEntry: boolean) {
  await h.deps.db.task.update({ where: { id: taskId }, data: { status: 'completed', progress: 100, resultUrls: ['https://cdn.example/r.mp4'] } });
  const entry = { accountId, type: 'video' as const, body: { status: 'completed' as const, resultUrls: ['https://cdn.example/r.mp4'], type: 'video' as const } };
  await h.deps.redis.publish(h.deps.events.taskChannel, encodeTaskEvent({ taskId, status: 'completed', ...(withEntry ? { entry } : {}) }));
}

it('sends the current state, each status and progress change, then the terminal poll body, and ends', async () => {
  const a = await h.newAccount();
  const id = await submit(a.auth);
  const s = open(id, a.auth);
  await s.until(() => s.events.length >= 1);
  expect(s.state.status).toBe(200);
  expect(s.state.headers['content-type']).toMatch(/^text\/event-stream/);
  expect(s.state.headers['ratelimit']).toBeDefined();
  expect(s.events[0]).toEqual({ id: '0', event: 'status', data: { status: 'pending', type: 'video' } });
  await markProcessing(h.deps.db, id);
  await updateProgress(h.deps.db, id, 40);
  await s.until(() => s.events.some((e) => e.id === '1040'));
  expect(s.events.at(-1)).toEqual({ id: '1040', event: 'status', data: { status: 'processing', progress: 40, type: 'video' } });
  await settle(id, a.id, true);
  await s.until(() => s.state.ended);
  expect(s.events.at(-1)).toEqual({ id: '2000', event: 'done', data: { status: 'completed', resultUrls: ['https://cdn.example/r.mp4'], type: 'video' } });
  // Each state once: no repeats of the refreshes that found nothing new.
  expect(new Set(s.events.map((e) => e.id)).size).toBe(s.events.length);
});

it('a settlement announced without its entry, or not announced at all, still ends the stream (read back)', async () => {
  const a = await h.newAccount();
  const [id1, id2] = [await submit(a.auth), await submit(a.auth)];
  const s1 = open(id1, a.auth);
  const s2 = open(id2, a.auth);
  await Promise.all([s1.until(() => s1.events.length >= 1), s2.until(() => s2.events.length >= 1)]);
  await settle(id1, a.id, false);
  await h.deps.db.task.update({ where: { id: id2 }, data: { status: 'failed', errorCode: 'timeout', errorMessage: 'No result', retryable: true } });
  await Promise.all([s1.until(() => s1.state.ended), s2.until(() => s2.state.ended)]);
  expect(s1.events.at(-1)).toMatchObject({ event: 'done', data: { status: 'completed' } });
  expect(s2.events.at(-1)).toEqual({ id: '2000', event: 'done', data: { status: 'failed', errorCode: 'timeout', errorMessage: 'No result', retryable: true, type: 'video' } });
});

it('Last-Event-ID resumes: a state the client saw is not sent again; a seen end just ends', async () => {
  const a = await h.newAccount();
  const id = await submit(a.auth);
  await markProcessing(h.deps.db, id);
  await updateProgress(h.deps.db, id, 40);
  const resumed = open(id, a.auth, { 'Last-Event-ID': '1040' });
  await resumed.until(() => resumed.state.body.includes('retry:'));
  await updateProgress(h.deps.db, id, 60);
  await resumed.until(() => resumed.events.length >= 1);
  expect(resumed.events[0]).toMatchObject({ id: '1060', data: { progress: 60 } });
  resumed.close();
  await settle(id, a.id, true);
  const fresh = open(id, a.auth);
  await fresh.until(() => fresh.state.ended);
  expect(fresh.events).toEqual([{ id: '2000', event: 'done', data: expect.objectContaining({ status: 'completed' }) }]);
  const seen = open(id, a.auth, { 'Last-Event-ID': '2000' });
  await seen.until(() => seen.state.ended);
  expect(seen.events).toEqual([]);
  const garbage = open(id, a.auth, { 'Last-Event-ID': 'x9' });
  await garbage.until(() => garbage.state.ended);
  expect(garbage.events).toHaveLength(1);
});

it('sends a heartbeat comment while nothing changes', async () => {
  const a = await h.newAccount();
  const s = open(await submit(a.auth), a.auth);
  await s.until(() => s.comments.includes('heartbeat'), 5_000);
  s.close();
});

it('another account\'s task and an unknown id are 404 JSON; no key is 401', async () => {
  const owner = await h.newAccount();
  const other = await h.newAccount();
  const id = await submit(owner.auth);
  const res = await request(h.app).get(`/api/tasks/${id}/events`).set(other.auth);
  expect(res.status).toBe(404);
  expect(res.body).toEqual({ error: expect.any(String), code: 'not_found' });
  expect((await request(h.app).get('/api/tasks/nope/events').set(owner.auth)).status).toBe(404);
  expect((await request(h.app).get(`/api/tasks/${id}/events`)).status).toBe(401);
});

it('caps the open streams of an account (429 too_many_streams), and frees a place when one closes', async () => {
  const a = await h.newAccount();
  const id = await submit(a.auth);
  const s1 = open(id, a.auth);
  const s2 = open(id, a.auth);
  await Promise.all([s1.until(() => s1.events.length >= 1), s2.until(() => s2.events.length >= 1)]);
  const third = await request(h.app).get(`/api/tasks/${id}/events`).set(a.auth);
  expect(third.status).toBe(429);
  expect(third.body.code).toBe('too_many_streams');
  expect(third.headers['retry-after']).toBe('5');
  // Another account is not affected.
  const b = await h.newAccount();
  const other = open(await submit(b.auth), b.auth);
  await other.until(() => other.events.length >= 1);
  other.close();
  s1.close();
  const streams = h.deps.taskStreams;
  await new Promise<void>((r) => {
    const t = setInterval(() => streams.hasRoom(a.id) && (clearInterval(t), r()), 20);
  });
  const again = open(id, a.auth);
  await again.until(() => again.events.length >= 1);
  expect(again.state.status).toBe(200);
  again.close();
  s2.close();
});

it('cuts a stream whose client does not read once its unsent bytes pass SSE_BUFFER_BYTES', async () => {
  const a = await h.newAccount();
  const id = await submit(a.auth);
  await markProcessing(h.deps.db, id);
  const hub = new TaskStreams(h.deps, h.deps.taskReads);
  // A response whose client never reads: every byte written stays buffered.
  const res = Object.assign(new EventEmitter(), {
    writableLength: 0,
    destroyed: false,
    status() {
      return res;
    },
    setHeader: () => undefined,
    flushHeaders: () => undefined,
    write(chunk: string) {
      res.writableLength += Buffer.byteLength(chunk);
      return false;
    },
    end: () => undefined,
    destroy() {
      res.destroyed = true;
    },
  });
  const task = await h.deps.taskReads.get(id);
  hub.start(res as unknown as express.Response, task!, -1);
  expect(hub.size).toBe(1);
  for (let p = 1; p < 99 && !res.destroyed; p++) {
    const sent = res.writableLength;
    await updateProgress(h.deps.db, id, p);
    // The next refresh (every 100 ms) sends the change: wait for its bytes, not for the period.
    await waitFor(() => res.writableLength > sent || res.destroyed, 10_000, `progress ${p} sent`);
  }
  expect(res.destroyed).toBe(true);
  expect(res.writableLength).toBeLessThan(1024 + 200); // cut at the first write past the bound
  expect(hub.size).toBe(0);
  expect(hub.cut).toBe(1);
  hub.closeAll();
});

describe('a task id that is not valid percent-encoding', () => {
  it.each(['/api/video/tasks/%E0%A4%A', '/api/image/tasks/%E0%A4%A', '/api/tasks/%E0%A4%A/events'])(
    '%s answers 400 validation_error with RateLimit, RateLimit-Policy and X-Request-Id, as the OpenAPI document says',
    async (p) => {
      const { createResponseChecker } = await import('../../../test/e2e/support/openapi-check');
      const a = await h.newAccount();
      const res = await request(h.app).get(p).set(a.auth);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'The URL is not valid percent-encoding', code: 'validation_error' });
      for (const name of ['ratelimit', 'ratelimit-policy', 'x-request-id']) expect(res.headers[name]).toEqual(expect.any(String));
      const headers = new Headers(Object.entries(res.headers).map(([k, v]) => [k, String(v)] as [string, string]));
      expect(createResponseChecker().check({ method: 'GET', path: p, status: 400, headers, body: res.body })).toEqual([]);
    },
  );
});

it('a stream counts once against the request rate, however long it stays open', async () => {
  const a = await h.newAccount({ rateLimitPerMinute: 5 });
  const id = await submit(a.auth); // 1 request
  const s = open(id, a.auth); // 2
  await s.until(() => s.comments.includes('heartbeat'), 5_000); // refreshes and a heartbeat later
  const res = await request(h.app).get('/api/balance').set(a.auth); // 3
  expect(res.status).toBe(200);
  expect(res.headers['ratelimit']).toMatch(/r=2;/);
  s.close();
});

it('at shutdown every stream ends (clients resume elsewhere with Last-Event-ID)', async () => {
  const a = await h.newAccount();
  const s = open(await submit(a.auth), a.auth);
  await s.until(() => s.events.length >= 1);
  h.deps.taskStreams.closeAll();
  await s.until(() => s.state.ended);
  expect(s.events.map((e) => e.event)).toEqual(['status']);
});
