// A result server that answers with bytes of its choosing (pooled-request.ts): a response whose
// framing could mean two things is refused, never stored as a short, long or shifted file; the
// framings real servers use deliver exactly their body.
import net, { type AddressInfo } from 'node:net';
import { BufferPool } from '../src/buffer-pool';
import { pooledHop, POOLED_CHUNK } from '../src/pooled-request';

const get = pooledHop(new BufferPool(POOLED_CHUNK, 8));

/** What a download of `raw` ends with: the body, or the error (of the head or of the body). */
async function download(raw: string): Promise<{ status?: number; body?: string; error?: string }> {
  const server = net.createServer((s) => {
    s.on('error', () => undefined);
    s.once('data', () => s.end(raw, 'latin1'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const url = new URL(`http://results.example.test:${(server.address() as AddressInfo).port}/v.mp4`);
    let res;
    try {
      res = await get(url, [{ address: '127.0.0.1', family: 4 }], {}, AbortSignal.timeout(5000));
    } catch (e) {
      return { error: (e as Error).message };
    }
    const parts: Buffer[] = [];
    try {
      for (let c = await res.body.nextChunk(); c; c = await res.body.nextChunk()) parts.push(Buffer.from(c));
    } catch (e) {
      return { status: res.statusCode, error: (e as Error).message };
    } finally {
      res.body.close();
    }
    return { status: res.statusCode, body: Buffer.concat(parts).toString('latin1') };
  } finally {
    server.close();
  }
}

const ok = 'HTTP/1.1 200 OK\r\n';

it.each([
  ['Content-Length beside Transfer-Encoding', `${ok}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n`],
  ['two different Content-Lengths', `${ok}Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!`],
  ['a negative Content-Length', `${ok}Content-Length: -5\r\n\r\nhello`],
  ['a signed Content-Length', `${ok}Content-Length: +5\r\n\r\nhello`],
  ['a folded header line', `${ok}X-A: 1\r\n  2\r\nContent-Length: 5\r\n\r\nhello`],
  ['lines ending in a bare LF', 'HTTP/1.1 200 OK\nContent-Length: 5\n\nhello'],
  ['a bare CR inside a header value', `${ok}X-A: a\rb\r\nContent-Length: 5\r\n\r\nhello`],
  ['a NUL inside a header value', `${ok}X-A: a\x00b\r\nContent-Length: 5\r\n\r\nhello`],
  ['a space before the colon', `${ok}Content-Length : 5\r\n\r\nhello`],
  ['a head over 64 KiB', `${ok}X-Big: ${'a'.repeat(70_000)}\r\nContent-Length: 5\r\n\r\nhello`],
  ['a head cut short', `${ok}Content-Len`],
  ['no answer at all', ''],
  ['a status below 100', 'HTTP/1.1 099 Odd\r\nContent-Length: 5\r\n\r\nhello'],
  ['101 Switching Protocols to a GET', 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\nConnection: upgrade\r\n\r\nhello'],
  ['a body shorter than its Content-Length', `${ok}Content-Length: 10\r\n\r\nhello`],
  ['a chunk longer than its size', `${ok}Transfer-Encoding: chunked\r\n\r\n3\r\nhello\r\n0\r\n\r\n`],
  ['a chunk size that is not hexadecimal', `${ok}Transfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n`],
  ['a chunk size past 64 bits', `${ok}Transfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\nhello\r\n0\r\n\r\n`],
  ['a chunk line ending in a bare LF', `${ok}Transfer-Encoding: chunked\r\n\r\n5\nhello\n0\n\n`],
  ['a chunked body cut before its last chunk', `${ok}Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n`],
])('refuses %s', async (_case, raw) => {
  const got = await download(raw);
  expect(got.body).toBeUndefined();
  expect(got.error).toMatch(/could not be fetched|the connection was cut/);
});

it.each([
  ['Content-Length', `${ok}Content-Length: 5\r\n\r\nhello`, 200, 'hello'],
  ['chunked, with an extension and a trailer', `${ok}Transfer-Encoding: chunked\r\n\r\n2;a=b\r\nhe\r\n3\r\nllo\r\n0\r\nX-T: 1\r\n\r\n`, 200, 'hello'],
  ['a body that ends with the connection', `${ok}\r\nhello`, 200, 'hello'],
  ['HTTP/1.0', 'HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nhello', 200, 'hello'],
  ['103 Early Hints before the answer', `HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n${ok}Content-Length: 5\r\n\r\nhello`, 200, 'hello'],
  ['204 with bytes after it', 'HTTP/1.1 204 No Content\r\n\r\nhello', 204, ''],
  ['bytes after the Content-Length', `${ok}Content-Length: 5\r\n\r\nhelloEXTRA`, 200, 'hello'],
])('reads %s as its body exactly', async (_case, raw, status, body) => {
  expect(await download(raw)).toEqual({ status, body });
});
