// The pooled result download (pooled-request.ts): the same bytes as the server sent (sha256) for
// every body framing, a consumer slower than the network, buffers reused from a pool that never
// holds more than one transfer needs, a server closing while the response waits for the consumer,
// and every way a transfer ends early (the deadline, the consumer leaving, the server cutting)
// closes the connection and gives the buffers back.
import { createHash } from 'node:crypto';
import http from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';
import { BufferPool } from '../src/buffer-pool';
import { idleDownloadClients, pooledHop, POOLED_CHUNK, type PooledBody } from '../src/pooled-request';
import type { ResolvedAddress } from '../src/url-policy';

const MiB = 1024 * 1024;
const SIZE = 24 * MiB + 12345;
/** Deterministic, not constant: a reused buffer handing out stale bytes would change the hash. */
const block = (i: number) => {
  const b = Buffer.alloc(MiB);
  for (let k = 0; k < b.length; k += 4) b.writeUInt32LE((i * 2654435761 + k) >>> 0, k);
  return b;
};
const blocks = Array.from({ length: Math.ceil(SIZE / MiB) }, (_, i) => block(i));
const whole = Buffer.concat(blocks).subarray(0, SIZE);
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let server: http.Server;
let base: string;
const sockets = new Set<Socket>();
beforeAll(async () => {
  server = http.createServer((req, res) => {
    const mode = req.url?.slice(1);
    if (mode === 'stall') {
      res.writeHead(200, { 'content-length': String(SIZE) });
      return res.write(whole.subarray(0, MiB)); // then nothing
    }
    if (mode === 'cut') {
      res.writeHead(200, { 'content-length': String(SIZE) });
      return res.write(whole.subarray(0, 3 * MiB), () => res.destroy());
    }
    if (mode === 'length') res.writeHead(200, { 'content-length': String(SIZE), 'content-type': 'video/mp4' });
    else if (mode === 'chunked') res.writeHead(200, { 'content-type': 'video/mp4' }); // node:http chunks it
    else {
      // No length, no chunking: the body ends with the connection.
      res.useChunkedEncodingByDefault = false;
      res.shouldKeepAlive = false;
      res.writeHead(200, { connection: 'close' });
    }
    let i = 0;
    const pump = () => {
      while (i * MiB < SIZE) {
        const piece = whole.subarray(i * MiB, Math.min(SIZE, (i + 1) * MiB));
        i += 1;
        if (!res.write(piece)) return res.once('drain', pump);
      }
      res.end();
    };
    pump();
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  idleDownloadClients.closeAll();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const here: ResolvedAddress[] = [{ address: '127.0.0.1', family: 4 }];
const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Buffers still out once the sockets had their 'close' (the read buffer goes back then). */
const outAfterClose = async (pool: BufferPool) => {
  for (let i = 0; i < 50 && pool.out > 0; i++) await tick(20);
  return pool.out;
};
const untilNoSockets = async () => {
  for (let i = 0; i < 50 && sockets.size > 0; i++) await tick(20);
  return sockets.size;
};

/** Reads a body to the end, hashing each lent chunk before asking for the next. */
async function drain(body: PooledBody, delayEvery = 0): Promise<{ sha256: string; bytes: number; chunks: number }> {
  const h = createHash('sha256');
  let bytes = 0;
  let chunks = 0;
  for (let c = await body.nextChunk(); c; c = await body.nextChunk()) {
    expect(c.length).toBeLessThanOrEqual(POOLED_CHUNK);
    h.update(c);
    bytes += c.length;
    chunks += 1;
    if (delayEvery && chunks % delayEvery === 0) await tick(2); // slower than the network: the socket pauses
  }
  body.close();
  return { sha256: h.digest('hex'), bytes, chunks };
}

it('delivers the bytes the server sent, for Content-Length, chunked and close-delimited bodies', async () => {
  const pool = new BufferPool(POOLED_CHUNK, 16);
  const get = pooledHop(pool);
  for (const mode of ['length', 'chunked', 'close']) {
    const res = await get(new URL(`${base}/${mode}`), here, { 'x-test': mode }, AbortSignal.timeout(20_000));
    expect(res.statusCode).toBe(200);
    const got = await drain(res.body, mode === 'length' ? 3 : 0);
    expect({ mode, sha256: got.sha256, bytes: got.bytes }).toEqual({ mode, sha256: sha(whole), bytes: SIZE });
  }
  expect(await outAfterClose(pool)).toBe(0);
  expect(await untilNoSockets()).toBe(0);
});

it('reuses its buffers: a transfer holds a handful, the next transfers allocate none', async () => {
  const pool = new BufferPool(POOLED_CHUNK, 16);
  const get = pooledHop(pool);
  const first = await drain((await get(new URL(`${base}/length`), here, {}, AbortSignal.timeout(20_000))).body, 2);
  expect(first.chunks).toBeGreaterThan(SIZE / POOLED_CHUNK - 1);
  // The one being filled, two waiting and the one lent out: never more.
  expect(pool.allocated).toBeLessThanOrEqual(4);
  const after = pool.allocated;
  for (let i = 0; i < 3; i++) await drain((await get(new URL(`${base}/chunked`), here, {}, AbortSignal.timeout(20_000))).body);
  expect(pool.allocated).toBe(after);
  expect(await outAfterClose(pool)).toBe(0);
  // Three at once need three transfers' worth, and no more.
  const three = await Promise.all([0, 1, 2].map(async () => drain((await get(new URL(`${base}/length`), here, {}, AbortSignal.timeout(20_000))).body, 2)));
  for (const t of three) expect(t.sha256).toBe(sha(whole));
  expect(pool.allocated).toBeLessThanOrEqual(12);
  expect(await outAfterClose(pool)).toBe(0);
});

it('a server that sends the whole body and closes while the response waits for the consumer: every byte arrives', async () => {
  const body = whole.subarray(0, 2 * POOLED_CHUNK);
  // A length with and without Connection: close (we always ask for it; not every server says so),
  // and a body that ends with the connection.
  for (const head of [`connection: close\r\ncontent-length: ${body.length}\r\n`, `content-length: ${body.length}\r\n`, 'connection: close\r\n']) {
    let clientEnded!: () => void;
    const ended = new Promise<void>((r) => (clientEnded = r));
    // Half-open: the server sees the client's FIN, which the client sends once its socket has
    // read every byte and the server's close.
    const raw = net.createServer({ allowHalfOpen: true }, (s) => {
      s.on('error', () => undefined);
      s.once('end', () => clientEnded());
      s.once('data', () => s.end(Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\n${head}\r\n`), body])));
    });
    await new Promise<void>((r) => raw.listen(0, '127.0.0.1', r));
    try {
      const pool = new BufferPool(POOLED_CHUNK, 16);
      const res = await pooledHop(pool)(new URL(`http://127.0.0.1:${(raw.address() as AddressInfo).port}/`), here, {}, AbortSignal.timeout(20_000));
      // Nothing read yet: the body fills the two waiting chunks as it arrives and the connection ends
      // (undici 7 asserted here when the response was paused, crashing the process). A client that
      // ended with the response closes its side too; one kept for the next download need not.
      await Promise.race([ended, (async () => { while (pool.out < 2) await tick(10); })()]);
      expect(pool.out).toBe(2);
      const got = await drain(res.body);
      expect({ head, ...got }).toEqual({ head, sha256: sha(body), bytes: body.length, chunks: 2 });
      expect(await outAfterClose(pool)).toBe(0);
    } finally {
      idleDownloadClients.closeAll(); // a client kept for the next download holds its connection
      await new Promise((r) => raw.close(r));
    }
  }
});

it('the deadline mid-body fails the read, closes the connection and gives the buffers back', async () => {
  const pool = new BufferPool(POOLED_CHUNK, 16);
  const res = await pooledHop(pool)(new URL(`${base}/stall`), here, {}, AbortSignal.timeout(300));
  const c = await res.body.nextChunk();
  expect(c?.length).toBeGreaterThan(0);
  const err = await (async () => {
    for (;;) if (!(await res.body.nextChunk())) return null;
  })().catch((e: Error) => e);
  expect(err?.message).toMatch(/timed out/);
  res.body.close();
  expect(await outAfterClose(pool)).toBe(0);
  expect(await untilNoSockets()).toBe(0);
});

it('a consumer that stops half-way closes the connection and gives the buffers back', async () => {
  const pool = new BufferPool(POOLED_CHUNK, 16);
  const res = await pooledHop(pool)(new URL(`${base}/length`), here, {}, AbortSignal.timeout(20_000));
  for (let i = 0; i < 8; i++) expect(await res.body.nextChunk()).not.toBeNull();
  res.body.close();
  expect(await outAfterClose(pool)).toBe(0);
  await expect(res.body.nextChunk()).rejects.toThrow(/closed/);
  expect(await untilNoSockets()).toBe(0);
});

it('a server that cuts the body before its Content-Length fails the read', async () => {
  const pool = new BufferPool(POOLED_CHUNK, 16);
  const res = await pooledHop(pool)(new URL(`${base}/cut`), here, {}, AbortSignal.timeout(20_000));
  await expect(drain(res.body)).rejects.toThrow(/the connection was cut \((the body does not match its Content-Length|the connection closed before the end of the response)\)/);
  res.body.close();
  expect(await outAfterClose(pool)).toBe(0);
});

it('refuses a request header that would split the request, and reports a refused connection', async () => {
  const get = pooledHop(new BufferPool(POOLED_CHUNK, 4));
  await expect(get(new URL(`${base}/length`), here, { 'x-a': 'v\r\nx-injected: 1' }, AbortSignal.timeout(2000))).rejects.toThrow(/invalid request header/);
  const closed = http.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((r) => closed.close(r));
  await expect(get(new URL(`http://127.0.0.1:${port}/`), here, {}, AbortSignal.timeout(2000))).rejects.toThrow(/could not be fetched \(connection refused\)/);
});
