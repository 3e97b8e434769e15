// The response parser of the pooled download path (http1-response.ts): the same bytes whatever
// way the reads split them, and a refusal for every response that could mean two things.
import { Http1ResponseParser, MalformedResponse, type ResponseHead } from '../src/http1-response';

interface Parsed {
  head?: ResponseHead;
  body: Buffer;
  ended: boolean;
}

/** Feeds `raw` in reads of `step` bytes through one reused buffer, as the socket does. */
function parse(raw: string | Buffer, step = Infinity, eof = true): Parsed {
  const out: Parsed = { body: Buffer.alloc(0), ended: false };
  const parts: Buffer[] = [];
  const p = new Http1ResponseParser({
    head: (h) => (out.head = h),
    body: (src, s, e) => parts.push(Buffer.from(src.subarray(s, e))),
    end: () => (out.ended = true),
  }, 1024);
  const bytes = Buffer.isBuffer(raw) ? raw : Buffer.from(raw, 'latin1');
  const reused = Buffer.alloc(Math.min(step, bytes.length) || 1);
  for (let i = 0; i < bytes.length; i += step) {
    const n = bytes.copy(reused, 0, i, Math.min(bytes.length, i + step));
    p.push(reused.subarray(0, n));
    reused.fill(0xee); // what a later read would leave in it
  }
  if (eof) p.eof();
  out.body = Buffer.concat(parts);
  return out;
}

const malformed = (raw: string, eof = true) => expect(() => parse(raw, Infinity, eof)).toThrow(MalformedResponse);

it('reads a Content-Length body, whatever the read sizes, and ignores bytes after it', () => {
  const raw = 'HTTP/1.1 200 OK\r\nContent-Type: video/mp4\r\nContent-Length: 10\r\nX-A: 1\r\nx-a: 2\r\n\r\n0123456789extra';
  for (const step of [1, 2, 3, 7, 64, Infinity]) {
    const r = parse(raw, step);
    expect(r.head).toEqual({ statusCode: 200, headers: { 'content-type': 'video/mp4', 'content-length': '10', 'x-a': '1, 2' } });
    expect(r.body.toString()).toBe('0123456789');
    expect(r.ended).toBe(true);
  }
});

it('decodes a chunked body with extensions and trailers split across reads', () => {
  const raw = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\nWiki\r\n5\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nX-Trailer: t\r\n\r\n';
  for (const step of [1, 5, 13, Infinity]) {
    const r = parse(raw, step, false);
    expect(r.body.toString()).toBe('Wikipedia in\r\n\r\nchunks.');
    expect(r.ended).toBe(true);
  }
});

it('reads a body without a length until the connection closes, and none for 204 and 304', () => {
  const r = parse('HTTP/1.0 200 OK\r\n\r\nuntil the end', 4);
  expect(r.body.toString()).toBe('until the end');
  expect(r.ended).toBe(true);
  for (const status of ['204 No Content', '304 Not Modified']) {
    const n = parse(`HTTP/1.1 ${status}\r\n\r\n`, Infinity, false);
    expect(n.ended).toBe(true);
    expect(n.body.length).toBe(0);
  }
});

it('skips interim 1xx responses (103 Early Hints) and refuses 101', () => {
  const r = parse('HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok', 3);
  expect(r.head?.statusCode).toBe(200);
  expect(r.body.toString()).toBe('ok');
  malformed('HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n');
});

it('refuses responses that could mean two things, and cut ones', () => {
  malformed('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n');
  malformed('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n');
  malformed('HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n');
  malformed('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n');
  malformed('HTTP/1.1 200 OK\r\nX-A: 1\r\n folded\r\n\r\n');
  malformed('HTTP/1.1 200 OK\r\nBad Name: 1\r\n\r\n');
  malformed('HTTP/1.1 200 OK\r\nX-A: a\rb\r\n\r\n');
  malformed('HTTP/2 200\r\n\r\n');
  malformed(`HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(2000)}\r\n\r\n`, false);
  malformed('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', false);
  malformed('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n', false);
  malformed('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\nab\r\n', false);
  // Cut short: by the closing connection.
  malformed('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n01234');
  malformed('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab');
  malformed('HTTP/1.1 200 OK\r\nContent');
  malformed('');
});

it('a header named like an Object property is only a header', () => {
  const r = parse('HTTP/1.1 200 OK\r\n__proto__: x\r\nconstructor: y\r\nContent-Length: 0\r\n\r\n', Infinity, false);
  expect(r.head?.headers.__proto__).toBe('x');
  expect(r.head?.headers.constructor).toBe('y');
  expect(Object.getPrototypeOf(r.head?.headers)).toBeNull();
});
