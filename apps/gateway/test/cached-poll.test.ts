// Cached polls answered before the Express app (routes/cached-poll.ts, server.ts): the same answer
// as the chain gives, header for header, counted and logged like any request, and everything the lane cannot decide from
// memory left to the chain. Also the batched task reads of polls that miss the cache
// (services/task-reads.ts) and the API-key cache's single lookup per key (middleware/auth.ts).
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import IORedis from 'ioredis';
import { encodePollEntry, pollCacheKey } from '@mediagen/queue';
import { sqlPool } from '@mediagen/db';
import { metricValue } from '../../../test/e2e/support/prom-text';
import * as pollService from '../src/services/poll.service';
import { TaskReads } from '../src/services/task-reads';
import { startHarness, Harness } from './harness';
import { waitFor } from '../../../test/e2e/support/wait';

jest.setTimeout(60_000);

let h: Harness;
let redis: IORedis;
beforeAll(async () => {
  h = await startHarness('cached-poll', { INSTANT_WAIT_MS: '0' });
  redis = new IORedis(h.deps.config.REDIS_URL);
});
afterAll(async () => {
  redis.disconnect();
  await h.close();
});

const image = { model: 'image-b-2.5', prompt: 'a lighthouse at dusk', ratio: '16:9' };
const submit = async (auth: Record<string, string>) => (await request(h.app).post('/api/image/generate').set(auth).send(image).expect(200)).body.taskId as string;
/** How many polls the chain's route answered (the lane never calls it). */
const viaChain = () => jest.spyOn(pollService, 'pollLocal');
/** Header names in order, and the values that do not change per request. */
const shape = (res: request.Response) => ({
  names: (res as unknown as { res: { rawHeaders: string[] } }).res.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase()),
  stable: Object.fromEntries(Object.entries(res.headers as Record<string, string>).filter(([k]) => !['x-request-id', 'ratelimit', 'date'].includes(k))),
});

describe('the cached-poll lane', () => {
  it('answers a cached poll with the status, headers and body the chain answers', async () => {
    const a = await h.newAccount();
    const id = await submit(a.auth);
    await request(h.app).get(`/api/image/tasks/${id}`).set(a.auth).expect(200); // fills the cache
    const spy = viaChain();
    const lane = await request(h.app).get(`/api/image/tasks/${id}`).set(a.auth).expect(200);
    expect(spy).not.toHaveBeenCalled();
    // A query string is not the documented form: the chain answers it, from the same local copy.
    const chain = await request(h.app).get(`/api/image/tasks/${id}?via=chain`).set(a.auth).expect(200);
    expect(spy).toHaveBeenCalledTimes(1);
    spy.mockRestore();
    expect(lane.text).toBe(chain.text);
    expect(lane.body).toEqual({ status: 'pending', type: 'image' });
    expect(shape(lane)).toEqual(shape(chain));
    expect(lane.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(lane.headers['content-security-policy']).toContain("default-src 'none'");
    // Each answer counts one request of the account's window.
    const r = (res: request.Response) => Number(/r=(\d+)/.exec(res.headers['ratelimit'])![1]);
    expect(r(chain)).toBe(r(lane) - 1);
    // A client's own request id is echoed, as the chain does.
    const echoed = await request(h.app).get(`/api/image/tasks/${id}`).set({ ...a.auth, 'X-Request-Id': 'client-id-1' }).expect(200);
    expect(echoed.headers['x-request-id']).toBe('client-id-1');
  });

  it('sends byte for byte the status line and header fields of an uncached poll, per-request values aside', async () => {
    const a = await h.newAccount();
    const id = await submit(a.auth);
    const spy = viaChain();
    // The first poll misses every cache: Express's chain answers it from Postgres.
    const uncached = await request(h.app).get(`/api/image/tasks/${id}`).set(a.auth).expect(200);
    expect(spy).toHaveBeenCalledTimes(1);
    const cached = await request(h.app).get(`/api/image/tasks/${id}`).set(a.auth).expect(200);
    expect(spy).toHaveBeenCalledTimes(1); // the lane answered
    spy.mockRestore();
    const raw = (r: request.Response) => (r as unknown as { res: { rawHeaders: string[]; statusMessage: string } }).res;
    const fields = (r: request.Response) => {
      const h = raw(r).rawHeaders;
      return h.filter((_, i) => i % 2 === 0).map((name, i) => [name, h[2 * i + 1]] as const);
    };
    const perRequest = new Set(['X-Request-Id', 'RateLimit', 'Date']);
    const [u, c] = [fields(uncached), fields(cached)];
    // The same names, same case, same order; the same values but for the per-request ones.
    expect(c.map(([n]) => n)).toEqual(u.map(([n]) => n));
    expect(c.filter(([n]) => !perRequest.has(n))).toEqual(u.filter(([n]) => !perRequest.has(n)));
    expect(raw(cached).statusMessage).toBe(raw(uncached).statusMessage);
    expect(cached.text).toBe(uncached.text);
    for (const [name, value] of [...u, ...c].filter(([n]) => perRequest.has(n))) {
      if (name === 'X-Request-Id') expect(value).toMatch(/^[0-9a-f-]{36}$/);
      if (name === 'RateLimit') expect(value).toMatch(/^"per-account"; r=\d+; t=\d+$/);
    }
    // What both carry: the security headers, the limit's policy, the entry's ETag.
    const names = u.map(([n]) => n);
    for (const n of ['Content-Security-Policy', 'X-Content-Type-Options', 'X-Frame-Options', 'Cross-Origin-Resource-Policy', 'RateLimit-Policy', 'ETag', 'Content-Length']) expect(names).toContain(n);
  });

  it("answers every poll of an entry from the entry's one prepared answer, each with its own request values", async () => {
    const a = await h.newAccount();
    const id = await submit(a.auth);
    // A body with characters outside ASCII: its length is in bytes, and the bytes are UTF-8.
    const body = { status: 'failed', errorMessage: 'Le rendu a échoué ✗', errorCode: 'generation_failed', retryable: true, type: 'image' } as const;
    await redis.set(pollCacheKey(h.deps.config.REDIS_PREFIX, id), encodePollEntry({ accountId: a.id, type: 'image', body }), 'PX', 60_000);
    const chain = await request(h.app).get(`/api/image/tasks/${id}`).set(a.auth).expect(200); // copies the shared entry
    const spy = viaChain();
    const answers = [];
    for (const rid of ['first-id', 'second-id', 'third-id']) answers.push(await request(h.app).get(`/api/image/tasks/${id}`).set({ ...a.auth, 'X-Request-Id': rid }).expect(200));
    expect(spy).not.toHaveBeenCalled();
    spy.mockRestore();
    expect(answers.map((r) => r.headers['x-request-id'])).toEqual(['first-id', 'second-id', 'third-id']);
    const left = answers.map((r) => Number(/r=(\d+)/.exec(r.headers['ratelimit'])![1]));
    expect(left).toEqual([left[0], left[0] - 1, left[0] - 2]);
    for (const r of answers) {
      expect(r.body).toEqual(body);
      expect(r.text).toBe(chain.text);
      expect(r.headers['content-length']).toBe(String(Buffer.byteLength(chain.text)));
      expect(r.headers['etag']).toBe(chain.headers['etag']);
    }
  });

  it('answers a gateway that is shutting down with Connection: close, as the chain does (writeHead, the same bytes)', async () => {
    const a = await h.newAccount();
    const id = await submit(a.auth);
    // Outside ASCII: the answer written through writeHead sends the body's UTF-8 bytes as they are.
    const body = { status: 'failed', errorMessage: 'Le rendu a échoué ✗', errorCode: 'generation_failed', retryable: true, type: 'image' } as const;
    await redis.set(pollCacheKey(h.deps.config.REDIS_PREFIX, id), encodePollEntry({ accountId: a.id, type: 'image', body }), 'PX', 60_000);
    await request(h.app).get(`/api/image/tasks/${id}`).set(a.auth).expect(200);
    const server = h.listen(0, '127.0.0.1');
    // What main.ts installs on shutdown, before the gateway's listener.
    server.prependListener('request', (_req, res) => res.setHeader('Connection', 'close'));
    try {
      const spy = viaChain();
      const lane = await request(server).get(`/api/image/tasks/${id}`).set(a.auth).expect(200);
      const chain = await request(server).get(`/api/image/tasks/${id}?via=chain`).set(a.auth).expect(200);
      expect(spy).toHaveBeenCalledTimes(1);
      spy.mockRestore();
      expect(lane.headers['connection']).toBe('close');
      expect(shape(lane)).toEqual(shape(chain));
      expect(lane.text).toBe(chain.text);
      expect(lane.body).toEqual(body);
      expect(lane.headers['content-length']).toBe(String(Buffer.byteLength(chain.text)));
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('counts its answers in the HTTP metrics and writes the access line', async () => {
    const a = await h.newAccount();
    const id = await submit(a.auth);
    await request(h.app).get(`/api/image/tasks/${id}`).set(a.auth).expect(200);
    const scrape = async () => (await request(h.app).get('/metrics').set(h.admin()).expect(200)).text;
    const before = await scrape();
    const log = h.deps.log;
    const level = log.level;
    log.level = 'info';
    const info = jest.spyOn(log, 'info').mockImplementation(() => undefined);
    try {
      for (let i = 0; i < 3; i++) await request(h.app).get(`/api/image/tasks/${id}`).set(a.auth).expect(200);
    } finally {
      log.level = level;
    }
    const lines = info.mock.calls.filter((c) => (c[0] as { req?: { url?: string } }).req?.url === `/api/image/tasks/${id}`);
    info.mockRestore();
    expect(lines).toHaveLength(3);
    expect(lines[0][0]).toMatchObject({ req: { method: 'GET' }, res: { statusCode: 200 }, accountId: a.id });
    expect(lines[0][1]).toBe('request completed');
    const after = await scrape();
    const labels = { method: 'GET', route: '/api/image/tasks/:taskId', status: '200' };
    expect(metricValue(after, 'mediagen_http_requests_total', labels) - metricValue(before, 'mediagen_http_requests_total', labels)).toBe(3);
    const count = { route: '/api/image/tasks/:taskId', status: '200' };
    expect(metricValue(after, 'mediagen_http_request_duration_seconds_count', count) - metricValue(before, 'mediagen_http_request_duration_seconds_count', count)).toBe(3);
  });

  it('shows N lane answers in a scrape as N requests and N durations, in the usual buckets', async () => {
    const a = await h.newAccount({ rateLimitPerMinute: 1_000_000 });
    const id = await submit(a.auth);
    await request(h.app).get(`/api/image/tasks/${id}`).set(a.auth).expect(200); // fills the cache
    const scrape = async () => (await request(h.app).get('/metrics').set(h.admin()).expect(200)).text;
    const labels = { method: 'GET', route: '/api/image/tasks/:taskId', status: '200' };
    const series = (text: string, name: string) =>
      text.split('\n').filter((l) => l.startsWith(`${name}{`) && l.includes('route="/api/image/tasks/:taskId"') && l.includes('method="GET"') && l.includes('status="200"'));
    const before = await scrape();
    const n = 40;
    const spy = viaChain();
    for (let i = 0; i < n; i++) await request(h.app).get(`/api/image/tasks/${id}`).set(a.auth).expect(200);
    expect(spy).not.toHaveBeenCalled(); // all answered by the lane
    spy.mockRestore();
    const after = await scrape();
    const delta = (name: string, extra: Record<string, string> = {}) => metricValue(after, name, { ...labels, ...extra }) - metricValue(before, name, { ...labels, ...extra });
    expect(delta('mediagen_http_requests_total')).toBe(n);
    expect(delta('mediagen_http_request_duration_seconds_count')).toBe(n);
    expect(delta('mediagen_http_request_duration_seconds_bucket', { le: '+Inf' })).toBe(n);
    expect(delta('mediagen_http_request_duration_seconds_bucket', { le: '30' })).toBe(n);
    expect(delta('mediagen_http_request_duration_seconds_sum')).toBeGreaterThan(0);
    // The boundaries the histogram always had, each bucket counting at most the answers of those above it.
    const les = series(after, 'mediagen_http_request_duration_seconds_bucket').map((l) => /le="([^"]+)"/.exec(l)![1]);
    expect(les).toEqual(['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '30', '+Inf']);
    const deltas = les.map((le) => delta('mediagen_http_request_duration_seconds_bucket', { le }));
    expect(deltas).toEqual([...deltas].sort((x, y) => x - y));
    // A second scrape with no answer in between shows the same figures: nothing is counted twice.
    const again = await scrape();
    for (const name of ['mediagen_http_requests_total', 'mediagen_http_request_duration_seconds_count']) expect(metricValue(again, name, labels)).toBe(metricValue(after, name, labels));
  });

  it('leaves to the chain what it cannot decide from memory, which answers as before', async () => {
    const a = await h.newAccount();
    const other = await h.newAccount();
    const id = await submit(a.auth);
    const first = await request(h.app).get(`/api/image/tasks/${id}`).set(a.auth).expect(200);
    const spy = viaChain();
    await request(h.app).get(`/api/image/tasks/${id}`).set(other.auth).expect(404); // another account's task
    await request(h.app).get(`/api/video/tasks/${id}`).set(a.auth).expect(404); // the other type's endpoint
    await request(h.app).get(`/api/image/tasks/${id}`).set({ ...a.auth, 'If-None-Match': first.headers['etag'] }).expect(304);
    await request(h.app).head(`/api/image/tasks/${id}`).set(a.auth).expect(200);
    await request(h.app).get(`/api/IMAGE/tasks/${id}`).set(a.auth).expect(200); // Express matches any case
    expect(spy.mock.calls.length).toBeGreaterThanOrEqual(4);
    spy.mockRestore();
    const bad = await request(h.app).get(`/api/image/tasks/${id}`).set({ Authorization: 'Bearer mg_live_unknownunknownunknownunknown' });
    expect(bad.status).toBe(401);
    expect(bad.body).toMatchObject({ code: 'unauthorized' });
  });

  it('refuses with 429 once the account has spent its window, through the chain', async () => {
    const a = await h.newAccount({ rateLimitPerMinute: 3 });
    const id = await submit(a.auth); // the submit counts too
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await request(h.app).get(`/api/image/tasks/${id}`).set(a.auth)).status);
    expect(statuses).toEqual([200, 200, 429, 429]);
    const last = await request(h.app).get(`/api/image/tasks/${id}`).set(a.auth).expect(429);
    expect(last.headers['retry-after']).toMatch(/^\d+$/);
    expect(last.headers['ratelimit']).toMatch(/^"per-account"; r=0; t=\d+$/);
    expect(last.body).toMatchObject({ code: 'rate_limited' });
  });

  it("never answers from its copy after the shared entry's own expiry", async () => {
    const a = await h.newAccount();
    const id = await submit(a.auth);
    // The shared entry as another gateway stored it, with little of its life left.
    await redis.set(pollCacheKey(h.deps.config.REDIS_PREFIX, id), encodePollEntry({ accountId: a.id, type: 'image', body: { status: 'pending', type: 'image' } }), 'PX', 400);
    expect((await request(h.app).get(`/api/image/tasks/${id}`).set(a.auth).expect(200)).body.status).toBe('pending');
    const spy = viaChain();
    expect((await request(h.app).get(`/api/image/tasks/${id}`).set(a.auth).expect(200)).body.status).toBe('pending');
    expect(spy).not.toHaveBeenCalled(); // the lane answered from the copy
    await h.deps.db.task.update({ where: { id }, data: { status: 'processing', progress: 40 } });
    await waitFor(async () => (await redis.exists(pollCacheKey(h.deps.config.REDIS_PREFIX, id))) === 0, 5_000, 'the shared entry to expire');
    expect((await request(h.app).get(`/api/image/tasks/${id}`).set(a.auth).expect(200)).body).toEqual({ status: 'processing', progress: 40, type: 'image' });
    expect(spy).toHaveBeenCalledTimes(1);
    spy.mockRestore();
  });
});

/** The answers read from a raw socket, in order, until `count` are complete, and whether the server ended the connection. */
async function exchange(port: number, writes: string[], count: number): Promise<{ answers: string[]; ended: boolean }> {
  const socket = net.connect(port, '127.0.0.1');
  let got = Buffer.alloc(0);
  let ended = false;
  const answers: string[] = [];
  const parse = () => {
    for (;;) {
      const end = got.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/\r\nContent-Length: (\d+)\r\n/i.exec(got.subarray(0, end + 2).toString('latin1'))?.[1] ?? 0);
      if (got.length < end + 4 + length) return;
      answers.push(got.subarray(0, end + 4 + length).toString('latin1'));
      got = got.subarray(end + 4 + length);
    }
  };
  await new Promise<void>((resolve, reject) => {
    socket.on('error', reject);
    socket.on('data', (d) => {
      got = Buffer.concat([got, d]);
      parse();
      if (answers.length >= count) setTimeout(resolve, 50); // long enough to see an end that follows
    });
    socket.on('end', () => {
      ended = true;
      resolve();
    });
    socket.on('connect', async () => {
      for (const w of writes) {
        socket.write(w);
        await new Promise((r) => setTimeout(r, 20));
      }
    });
  });
  socket.destroy();
  return { answers, ended };
}

/** An answer with its per-request values (X-Request-Id, RateLimit, Date) blanked. */
const blank = (answer: string) => answer.replace(/^(X-Request-Id|RateLimit|Date): .*$/gim, '$1: -');
const requestIdOf = (answer: string) => /^X-Request-Id: (.*)\r$/im.exec(answer)?.[1];

describe('the cached-poll lane on the wire', () => {
  let server: http.Server;
  let port: number;
  let a: { id: string; auth: { Authorization: string } };
  let cached: string;
  beforeAll(async () => {
    server = h.listen(0, '127.0.0.1');
    server.keepAliveTimeout = 65_000; // as main.ts sets it: the answers carry Keep-Alive: timeout=65
    await new Promise((r) => server.once('listening', r));
    port = (server.address() as AddressInfo).port;
    // A limit whose reservations (a hundred requests at a time) admit every poll here from memory.
    a = await h.newAccount({ rateLimitPerMinute: 1_000_000 });
    cached = await submit(a.auth);
    await request(h.app).get(`/api/image/tasks/${cached}`).set(a.auth).expect(200); // fills the cache
  });
  afterAll(() => new Promise((r) => server.close(r)));

  const get = (path: string, rid: string, extra = '', version = '1.1') =>
    `GET ${path} HTTP/${version}\r\nHost: 127.0.0.1\r\nAuthorization: ${a.auth.Authorization}\r\nX-Request-Id: ${rid}\r\n${extra}\r\n`;
  /** What `f` returns, and how many polls of `taskId` the chain's route answered meanwhile. */
  const viaChainOf = async <T>(taskId: string, f: () => Promise<T>): Promise<[T, number]> => {
    const spy = viaChain();
    try {
      const out = await f();
      return [out, spy.mock.calls.filter((c) => c[3] === taskId).length];
    } finally {
      spy.mockRestore();
    }
  };
  const lanePath = () => `/api/image/tasks/${cached}`;
  const chainPath = () => `/api/image/tasks/${cached}?via=chain`;

  it('writes a cached poll without writeHead, in one socket write', async () => {
    const writeHead = jest.spyOn(http.ServerResponse.prototype, 'writeHead');
    const write = jest.spyOn(net.Socket.prototype, 'write');
    const spy = viaChain();
    try {
      const { answers } = await exchange(port, [get(lanePath(), 'one-write')], 1);
      expect(spy).not.toHaveBeenCalled();
      expect(writeHead).not.toHaveBeenCalled();
      const writes = write.mock.calls.filter((c) => String(c[0]).startsWith('HTTP/1.1 200 OK'));
      expect(writes).toHaveLength(1);
      expect(Buffer.from(writes[0][0] as string, 'latin1').toString('latin1')).toBe(answers[0]);
    } finally {
      writeHead.mockRestore();
      write.mockRestore();
      spy.mockRestore();
    }
  });

  it('sends the bytes the chain sends over a kept-alive connection, per-request values aside', async () => {
    const [{ answers, ended }, chained] = await viaChainOf(cached, () => exchange(port, [get(lanePath(), 'ka-1'), get(chainPath(), 'ka-2'), get(lanePath(), 'ka-3')], 3));
    expect(chained).toBe(1);
    expect(ended).toBe(false);
    expect(answers.map(requestIdOf)).toEqual(['ka-1', 'ka-2', 'ka-3']);
    expect(blank(answers[0])).toBe(blank(answers[1]));
    expect(blank(answers[2])).toBe(blank(answers[1]));
    expect(answers[0]).toMatch(/\r\nConnection: keep-alive\r\nKeep-Alive: timeout=65\r\n\r\n\{/);
    expect(answers[0]).toMatch(/^HTTP\/1\.1 200 OK\r\nX-Request-Id: ka-1\r\n/);
    expect(answers[0]).toMatch(/\r\nDate: [A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT\r\n/);
    expect(answers[0]).toMatch(/\r\nRateLimit: "per-account"; r=\d+; t=\d+\r\n/);
  });

  it('answers requests pipelined in one write in order, a cached poll behind a read from Postgres', async () => {
    const uncached = await submit(a.auth);
    const pipelined = get(`/api/image/tasks/${uncached}`, 'pipe-1') + get(lanePath(), 'pipe-2') + get(chainPath(), 'pipe-3') + get(lanePath(), 'pipe-4');
    const [{ answers, ended }, chained] = await viaChainOf(cached, () => exchange(port, [pipelined], 4));
    expect(chained).toBe(1); // the third: the lane answered the second and the fourth
    expect(ended).toBe(false);
    expect(answers.map(requestIdOf)).toEqual(['pipe-1', 'pipe-2', 'pipe-3', 'pipe-4']);
    expect(blank(answers[1])).toBe(blank(answers[2]));
    expect(blank(answers[3])).toBe(blank(answers[2]));
  });

  it('closes the connection after a poll sent with Connection: close, as the chain does', async () => {
    const lane = await exchange(port, [get(lanePath(), 'close-1', 'Connection: close\r\n')], 1);
    const chain = await exchange(port, [get(chainPath(), 'close-2', 'Connection: close\r\n')], 1);
    expect([lane.ended, chain.ended]).toEqual([true, true]);
    expect(lane.answers[0]).toContain('\r\nConnection: close\r\n\r\n');
    expect(blank(lane.answers[0])).toBe(blank(chain.answers[0]));
  });

  it('answers HTTP/1.0 clients as the chain does: closed by default, kept alive when asked', async () => {
    const lane = await exchange(port, [get(lanePath(), 'old-1', '', '1.0')], 1);
    const chain = await exchange(port, [get(chainPath(), 'old-2', '', '1.0')], 1);
    expect([lane.ended, chain.ended]).toEqual([true, true]);
    expect(lane.answers[0]).toContain('\r\nConnection: close\r\n\r\n');
    expect(blank(lane.answers[0])).toBe(blank(chain.answers[0]));
    const [kept, chained] = await viaChainOf(cached, () =>
      exchange(port, [get(lanePath(), 'old-3', 'Connection: keep-alive\r\n', '1.0'), get(chainPath(), 'old-4', 'Connection: keep-alive\r\n', '1.0')], 2),
    );
    expect(chained).toBe(1);
    expect(kept.ended).toBe(false);
    expect(kept.answers[0]).toContain('\r\nConnection: keep-alive\r\nKeep-Alive: timeout=65\r\n\r\n');
    expect(blank(kept.answers[0])).toBe(blank(kept.answers[1]));
  });

  it("follows the server's limit of requests per connection as the chain does", async () => {
    server.maxRequestsPerSocket = 2;
    try {
      const lane = await exchange(port, [get(lanePath(), 'max-1'), get(lanePath(), 'max-2')], 2);
      const chain = await exchange(port, [get(chainPath(), 'max-3'), get(chainPath(), 'max-4')], 2);
      expect(lane.answers[0]).toContain('\r\nKeep-Alive: timeout=65, max=2\r\n');
      expect(lane.answers[1]).toContain('\r\nConnection: close\r\n');
      expect(lane.answers.map(blank)).toEqual(chain.answers.map(blank));
    } finally {
      server.maxRequestsPerSocket = 0;
    }
  });

  it('sends a body outside ASCII as the same UTF-8 bytes the chain sends', async () => {
    const id = await submit(a.auth);
    const body = { status: 'failed', errorMessage: 'Le rendu a échoué ✗', errorCode: 'generation_failed', retryable: true, type: 'image' } as const;
    await redis.set(pollCacheKey(h.deps.config.REDIS_PREFIX, id), encodePollEntry({ accountId: a.id, type: 'image', body }), 'PX', 60_000);
    const [{ answers }, chained] = await viaChainOf(id, () => exchange(port, [get(`/api/image/tasks/${id}?via=chain`, 'utf-1'), get(`/api/image/tasks/${id}`, 'utf-2')], 2));
    expect(chained).toBe(1);
    expect(blank(answers[1])).toBe(blank(answers[0]));
    expect(Buffer.from(answers[1], 'latin1').toString('utf8')).toContain('échoué ✗');
  });

  it('lets the server close idle connections after its answers (graceful shutdown)', async () => {
    const socket = net.connect(port, '127.0.0.1');
    const ended = new Promise<void>((r) => socket.on('close', () => r()));
    let got = '';
    socket.on('data', (d) => (got += d.toString('latin1')));
    socket.write(get(lanePath(), 'idle-1'));
    await waitFor(() => got.includes('"pending"'), 5_000, 'the answer');
    server.closeIdleConnections();
    await ended; // the connection counted as idle once its answer finished
  });
});

describe('task reads of polls that miss the cache', () => {
  it('reads the misses of one turn of the event loop in one statement', async () => {
    const a = await h.newAccount();
    const other = await h.newAccount();
    const ids = [];
    for (let i = 0; i < 12; i++) ids.push(await submit(a.auth));
    const query = jest.spyOn(sqlPool(h.deps.db), 'query');
    const answers = await Promise.all([
      ...ids.map((id) => request(h.app).get(`/api/image/tasks/${id}`).set(a.auth)),
      request(h.app).get(`/api/image/tasks/${ids[0]}`).set(other.auth),
    ]);
    const reads = query.mock.calls.filter((c) => String(c[0]).includes('= ANY($1::text[])'));
    query.mockRestore();
    expect(answers.map((r) => r.status)).toEqual([...ids.map(() => 200), 404]);
    expect(answers.slice(0, -1).every((r) => r.body.status === 'pending')).toBe(true);
    // Supertest opens a connection per request, so they arrive over a few turns, not twelve.
    expect(reads.length).toBeGreaterThanOrEqual(1);
    expect(reads.length).toBeLessThan(ids.length);
  });

  it('answers every caller of a batch, and fails them all when the read fails', async () => {
    const calls: string[][] = [];
    let fail = false;
    const reads = new TaskReads(async (ids) => {
      calls.push([...ids]);
      if (fail) throw new Error('database unavailable');
      return new Map(ids.filter((id) => id !== 'gone').map((id) => [id, { id, accountId: 'acc', type: 'image' as const, status: 'pending' as const, progress: 0, resultUrls: [], errorCode: null, errorMessage: null, retryable: null, expiresAt: null }]));
    });
    const got = await Promise.all(['t1', 't2', 't1', 'gone'].map((id) => reads.get(id)));
    expect(calls).toEqual([['t1', 't2', 'gone']]);
    expect(got.map((v) => v?.id ?? null)).toEqual(['t1', 't2', 't1', null]);
    fail = true;
    const failed = await Promise.allSettled([reads.get('t3'), reads.get('t4')]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(calls).toHaveLength(2);
  });
});

describe('API-key look-ups', () => {
  it('requests that need the same key at once share one look-up', async () => {
    const a = await h.newAccount();
    const find = jest.spyOn(h.deps.db.apiKey, 'findUnique');
    const answers = await Promise.all(Array.from({ length: 10 }, () => request(h.app).get('/api/balance').set(a.auth)));
    const lookups = find.mock.calls.length;
    find.mockRestore();
    expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200));
    expect(lookups).toBe(1);
  });

  it('a key in use is looked up again shortly before its entry expires, without a request waiting for it', async () => {
    const a = await h.newAccount();
    await request(h.app).get('/api/balance').set(a.auth).expect(200);
    await request(h.app).get('/api/balance').set(a.auth).expect(200); // now known by its header
    const start = Date.now();
    const now = jest.spyOn(Date, 'now');
    const find = jest.spyOn(h.deps.db.apiKey, 'findUnique');
    try {
      now.mockReturnValue(start + 4_500); // half a second of the 5 s entry left
      await request(h.app).get('/api/balance').set(a.auth).expect(200);
      await waitFor(() => find.mock.calls.length > 0, 5_000, 'the refresh lookup');
      // The refresh lands: the lookup's answer, then the cache update chained on it (microtasks,
      // all run before the next turn of the event loop).
      await find.mock.results[0].value;
      await new Promise((r) => setImmediate(r));
      now.mockReturnValue(start + 7_000); // past the first entry's end, within the refreshed one's
      await request(h.app).get('/api/balance').set(a.auth).expect(200);
      expect(find).toHaveBeenCalledTimes(1);
    } finally {
      now.mockRestore();
      find.mockRestore();
    }
  });
});
