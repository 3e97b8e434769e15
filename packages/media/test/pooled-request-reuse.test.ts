// Result downloads keep a connection that ended cleanly for the next download of the same origin
// and the same checked addresses (pooled-request.ts, idle-clients.ts): counted as TCP connections
// a local server accepts. A transfer that ended any other way is never reused, and two downloads
// at once do not queue behind each other.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { BufferPool } from '../src/buffer-pool';
import { IdleClients, idleKey } from '../src/idle-clients';
import { idleDownloadClients, pooledHop, POOLED_CHUNK, type PooledBody } from '../src/pooled-request';
import type { ResolvedAddress } from '../src/url-policy';

const small = Buffer.alloc(100_000, 7);
let server: http.Server;
let port: number;
let connections = 0;
const sockets = new Set<Socket>();
const slowResponses: http.ServerResponse[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/slow') {
      res.writeHead(200, { 'content-length': String(small.length) });
      res.write(small.subarray(0, 10)); // the rest when the test says so
      slowResponses.push(res);
      return;
    }
    if (req.url === '/cut') {
      res.writeHead(200, { 'content-length': String(small.length) });
      return res.write(small.subarray(0, 1000), () => res.destroy());
    }
    if (req.url === '/trailing') {
      // A complete response followed by bytes nobody asked for.
      const s = res.socket!;
      s.write(`HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhelloHTTP/1.1 200 OK\r\ncontent-length: 4\r\n\r\nevil`);
      return;
    }
    res.writeHead(200, { 'content-length': String(small.length) });
    res.end(small);
  });
  server.on('connection', (s) => {
    connections += 1;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterEach(() => idleDownloadClients.closeAll());
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const here: ResolvedAddress[] = [{ address: '127.0.0.1', family: 4 }];
const hop = pooledHop(new BufferPool(POOLED_CHUNK, 8));
const get = (path: string, addresses = here, signal = AbortSignal.timeout(10_000)) => hop(new URL(`http://127.0.0.1:${port}${path}`), addresses, {}, signal);

async function readAll(body: PooledBody): Promise<number> {
  let n = 0;
  try {
    for (let c = await body.nextChunk(); c; c = await body.nextChunk()) n += c.length;
  } finally {
    body.close();
  }
  return n;
}

it('a download that follows another from the same origin and addresses reuses its connection', async () => {
  const before = connections;
  for (let i = 0; i < 3; i++) expect(await readAll((await get('/file')).body)).toBe(small.length);
  expect(connections - before).toBe(1);
  expect(idleDownloadClients.size).toBe(1);
});

it('the same origin checked to other addresses gets a connection of its own', async () => {
  const before = connections;
  expect(await readAll((await get('/file')).body)).toBe(small.length);
  // Another address list (the second address is never dialled: the first answers).
  const other: ResolvedAddress[] = [{ address: '127.0.0.1', family: 4 }, { address: '127.0.0.2', family: 4 }];
  expect(await readAll((await get('/file', other)).body)).toBe(small.length);
  expect(connections - before).toBe(2);
  expect(idleKey(`http://127.0.0.1:${port}`, other)).not.toBe(idleKey(`http://127.0.0.1:${port}`, here));
});

it('a transfer that was cut, aborted or closed early is never reused', async () => {
  // Cut by the server before its Content-Length.
  let before = connections;
  await expect(readAll((await get('/cut')).body)).rejects.toThrow();
  expect(await readAll((await get('/file')).body)).toBe(small.length);
  expect(connections - before).toBe(2);

  // Closed by the consumer half-way.
  idleDownloadClients.closeAll();
  before = connections;
  const half = await get('/slow');
  expect((await half.body.nextChunk())?.length).toBe(10);
  half.body.close();
  expect(await readAll((await get('/file')).body)).toBe(small.length);
  expect(connections - before).toBe(2);

  // The caller's deadline mid-body.
  idleDownloadClients.closeAll();
  before = connections;
  const ac = new AbortController();
  const late = await get('/slow', here, ac.signal);
  ac.abort(new Error('deadline'));
  await expect(readAll(late.body)).rejects.toThrow();
  expect(await readAll((await get('/file')).body)).toBe(small.length);
  expect(connections - before).toBe(2);
  for (const r of slowResponses.splice(0)) r.destroy();
});

it('bytes a server sends after a complete response are not taken for the next one', async () => {
  const first = await get('/trailing');
  let got = '';
  for (let c = await first.body.nextChunk(); c; c = await first.body.nextChunk()) got += c.toString();
  first.body.close();
  expect(got).toBe('hello');
  // The next download is answered by the server for its own request, never with "evil".
  const next = await get('/file');
  expect(await readAll(next.body)).toBe(small.length);
});

it('two downloads at once each get a connection: a slow one does not hold a fast one back', async () => {
  const slow = await get('/slow');
  const fast = await Promise.race([get('/file'), new Promise<null>((r) => setTimeout(() => r(null), 3_000))]);
  expect(fast).not.toBeNull();
  expect(await readAll(fast!.body)).toBe(small.length);
  for (const r of slowResponses.splice(0)) r.end(small.subarray(10));
  expect(await readAll(slow.body)).toBe(small.length);
});

it('idle clients are closed after their idle time, and the number kept per key is bounded', async () => {
  const destroyed: string[] = [];
  const fake = (name: string) => ({ destroy: async () => void destroyed.push(name) });
  const idle = new IdleClients<ReturnType<typeof fake>>(50);
  for (let i = 0; i < 6; i++) idle.put('k', fake(`c${i}`));
  expect(idle.size).toBe(4);
  expect(destroyed).toEqual(['c4', 'c5']);
  const taken = idle.take('k');
  expect(taken).not.toBeNull();
  for (let i = 0; i < 100 && idle.size > 0; i++) await new Promise((r) => setTimeout(r, 20));
  expect(idle.size).toBe(0);
  expect(destroyed.sort()).toEqual(['c0', 'c1', 'c2', 'c4', 'c5']);
});
