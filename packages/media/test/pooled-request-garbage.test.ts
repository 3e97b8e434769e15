// The dead socket-read buffers of a download (young-collect.ts): each read gets a fresh
// ArrayBuffer that only a collection frees, and left to V8's own pace about 64 MiB or more of them
// piled up before one came. Four concurrent 128 MiB downloads must keep the process's
// ArrayBuffer bytes within a small bound over where they started.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { BufferPool } from '../src/buffer-pool';
import { pooledHop, POOLED_CHUNK } from '../src/pooled-request';
import type { ResolvedAddress } from '../src/url-policy';

const MiB = 1024 * 1024;
const SIZE = 128 * MiB;
const piece = Buffer.alloc(MiB, 0x5a);

let server: http.Server;
let base: string;
beforeAll(async () => {
  server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-length': String(SIZE) });
    let left = SIZE / MiB;
    const pump = () => {
      while (left > 0) {
        left -= 1;
        // The same buffer every time: the server adds no garbage of its own.
        if (!res.write(piece)) return res.once('drain', pump);
      }
      res.end();
    };
    pump();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const local: ResolvedAddress[] = [{ address: '127.0.0.1', family: 4 }];

it('four concurrent 128 MiB downloads hold at most 40 MiB of ArrayBuffers over the start', async () => {
  const pool = new BufferPool(POOLED_CHUNK, 64);
  const hop = pooledHop(pool);
  const download = async () => {
    const res = await hop(new URL(`${base}/x`), local, {}, AbortSignal.timeout(60_000));
    let n = 0;
    for (let b = await res.body.nextChunk(); b; b = await res.body.nextChunk()) n += b.length;
    res.body.close();
    return n;
  };
  await download(); // undici loaded, the pool filled
  const start = process.memoryUsage().arrayBuffers;
  let peak = start;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().arrayBuffers)), 5);
  try {
    expect(await Promise.all([download(), download(), download(), download()])).toEqual([SIZE, SIZE, SIZE, SIZE]);
  } finally {
    clearInterval(sampler);
  }
  expect((peak - start) / MiB).toBeLessThan(40);
}, 120_000);
