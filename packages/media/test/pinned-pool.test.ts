// The worker's result downloads on kept-alive connections (createPinnedPool): a second file from
// the same host reuses the connection, the connection still goes only to the checked addresses
// (never to what DNS would answer for the name), another address set gets its own connection, and
// a kept connection the server dropped while idle costs a retry, not a failed download.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createPinnedPool, safeFetch, type PinnedPool } from '../src';

interface Server {
  port: number;
  /** Connections accepted so far. */
  connections: () => number;
  close: () => Promise<void>;
}

/** A file server; with `dropReused`, a connection's second request is answered by a reset. */
async function startServer(opts: { dropReused?: boolean } = {}): Promise<Server> {
  const sockets = new Set<Socket>();
  const served = new WeakMap<Socket, number>();
  const srv = http.createServer((req, res) => {
    const n = (served.get(req.socket) ?? 0) + 1;
    served.set(req.socket, n);
    if (opts.dropReused && n > 1) return void req.socket.destroy();
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': '5' });
    res.end('hello');
  });
  srv.on('connection', (s) => sockets.add(s));
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return {
    port: (srv.address() as AddressInfo).port,
    connections: () => sockets.size,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        srv.close(() => r());
      }),
  };
}

const loopback = [{ address: '127.0.0.1', family: 4 as const }];

async function get(pool: PinnedPool, url: string, resolve = async () => loopback): Promise<string> {
  const { res } = await safeFetch(url, { allowPrivate: true, maxRedirects: 0, resolve }, { signal: AbortSignal.timeout(5000) }, pool.hop);
  let body = '';
  for await (const c of res) body += String(c);
  return body;
}

let srv: Server;
let pool: PinnedPool;
beforeEach(async () => {
  pool = createPinnedPool();
});
afterEach(async () => {
  pool.close();
  await srv?.close();
});

it('downloads a second file from the same host on the same connection', async () => {
  srv = await startServer();
  expect(await get(pool, `http://127.0.0.1:${srv.port}/a.png`)).toBe('hello');
  expect(await get(pool, `http://127.0.0.1:${srv.port}/b.png`)).toBe('hello');
  expect(srv.connections()).toBe(1);
});

it('connects only to the checked addresses of the host name, and a changed DNS answer gets its own connection', async () => {
  srv = await startServer();
  // `files.invalid` resolves nowhere through DNS: reaching the server proves the socket went to
  // the address the check passed.
  const url = `http://files.invalid:${srv.port}/a.png`;
  expect(await get(pool, url)).toBe('hello');
  expect(await get(pool, url)).toBe('hello');
  expect(srv.connections()).toBe(1);
  // The same name now resolves to another (here: equally loopback) address list: not the kept socket.
  const both = async () => [{ address: '127.0.0.1', family: 4 as const }, { address: '127.0.0.2', family: 4 as const }];
  expect(await get(pool, url, both)).toBe('hello');
  expect(srv.connections()).toBe(2);
});

it('sends the request again on a new connection when the kept one was dropped by the server', async () => {
  srv = await startServer({ dropReused: true });
  expect(await get(pool, `http://127.0.0.1:${srv.port}/a.png`)).toBe('hello');
  expect(await get(pool, `http://127.0.0.1:${srv.port}/b.png`)).toBe('hello');
  expect(srv.connections()).toBe(2);
});

it('still refuses a private address when the policy does', async () => {
  srv = await startServer();
  const err = await safeFetch(`https://127.0.0.1:${srv.port}/a.png`, { allowPrivate: false, maxRedirects: 0 }, { signal: AbortSignal.timeout(5000) }, pool.hop).catch((e: Error) => e);
  expect((err as Error).message).toMatch(/non-public address/);
  expect(srv.connections()).toBe(0);
});
