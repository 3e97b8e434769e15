// The one result download path against a hostile upstream: redirects into our
// network, endless and dripping bodies, SVG with script, bodies without or with a lying content
// type, inline results, headers leaking to a redirect target, outputs beyond what was asked.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';
import { pooledRequest, type Hop, type PooledResponse } from '@mediagen/media';
import { capOutputs, DEFAULT_DOWNLOAD_POLICY, DownloadPolicy, openResult, ResultBody, ResultRef, UpstreamError } from '../src';
import { waitFor } from '../../../test/e2e/support/wait';

const png = (() => {
  const p = new PNG({ width: 4, height: 4 });
  return PNG.sync.write(p);
})();
const mp4Head = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom', 'latin1'), Buffer.alloc(12)]);
const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>fetch("/admin")</script></svg>');

let server: http.Server;
let base: string;
const seenHeaders: Record<string, http.IncomingHttpHeaders> = {};
const openSockets = new Set<import('node:net').Socket>();

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seenHeaders[req.url ?? ''] = req.headers;
    switch (req.url) {
      case '/png':
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(png.length) });
        return res.end(png);
      case '/png-untyped':
        // No content type at all: the bytes decide.
        res.writeHead(200);
        return res.end(png);
      case '/html-untyped':
        res.writeHead(200);
        return res.end('<html><body>Internal error</body></html>');
      case '/svg-as-png':
        res.writeHead(200, { 'content-type': 'image/png' });
        return res.end(svg);
      case '/svg':
        res.writeHead(200, { 'content-type': 'image/svg+xml' });
        return res.end(svg);
      case '/endless': {
        res.writeHead(200, { 'content-type': 'video/mp4' });
        res.write(mp4Head);
        const chunk = Buffer.alloc(64 * 1024);
        const pump = () => {
          while (res.write(chunk)) if (res.destroyed) return;
        };
        res.on('drain', pump);
        return pump();
      }
      case '/drip': {
        res.writeHead(200, { 'content-type': 'video/mp4' });
        res.write(Buffer.concat([mp4Head, Buffer.alloc(64)]));
        const t = setInterval(() => res.write(Buffer.alloc(1)), 100);
        res.on('close', () => clearInterval(t));
        return;
      }
      case '/stall-head':
        // Headers, then nothing: the sniff itself must be cut by the deadline.
        res.writeHead(200, { 'content-type': 'image/png' });
        return;
      case '/huge-declared':
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(10 * 1024 * 1024 * 1024) });
        return res.write(png);
      case '/gone':
        res.writeHead(404);
        return res.end();
      case '/busy':
        res.writeHead(503);
        return res.end();
      case '/to-metadata':
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
        return res.end();
      case '/to-internal':
        res.writeHead(302, { location: 'https://internal.example/secret' });
        return res.end();
      case '/to-other-cdn':
        res.writeHead(302, { location: 'https://cdn.example/png' });
        return res.end();
      case '/loop':
        res.writeHead(302, { location: 'https://results.example/loop' });
        return res.end();
      default:
        res.writeHead(404);
        return res.end();
    }
  });
  server.on('connection', (s) => {
    openSockets.add(s);
    s.on('close', () => openSockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const local: DownloadPolicy = { ...DEFAULT_DOWNLOAD_POLICY, allowPrivate: true, maxBytes: { image: 1024 * 1024, video: 1024 * 1024 } };

/**
 * "Public" hosts for the URL-policy cases: made-up names resolve to public or private addresses as
 * each case needs, and every connection actually goes to the local hostile server.
 */
const publicHosts: DownloadPolicy = {
  ...local,
  allowPrivate: false,
  resolve: async (host) => [{ address: host === 'internal.example' ? '10.0.0.5' : '93.184.216.34', family: 4 }],
  hop: ((url, _addresses, headers, signal) => {
    const target = new URL(`${base}${url.pathname}`);
    return pooledRequest(target, [{ address: '127.0.0.1', family: 4 }], headers, signal);
  }) as Hop<PooledResponse>,
};

const url = (path: string, headers?: Record<string, string>): ResultRef => ({ kind: 'url', url: `${base}${path}`, headers });
/** Copies each lent chunk before asking for the next (the next one may reuse its buffer). */
const readAll = async (body: ResultBody) => {
  const parts: Buffer[] = [];
  try {
    for (let c = await body.nextChunk(); c; c = await body.nextChunk()) parts.push(Buffer.from(c));
  } finally {
    body.close();
  }
  return Buffer.concat(parts);
};
const failure = async (p: Promise<unknown>): Promise<UpstreamError> => {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(UpstreamError);
    return e as UpstreamError;
  }
  throw new Error('expected a failure');
};

it('stores a PNG under the type sniffed from its bytes, also when the upstream sends no content type', async () => {
  for (const path of ['/png', '/png-untyped']) {
    const r = await openResult(url(path), 'image', local, AbortSignal.timeout(5000));
    expect(r.contentType).toBe('image/png');
    expect((await readAll(r.body)).equals(png)).toBe(true);
  }
});

it('refuses SVG (with script) whatever it is labelled, HTML without a type, and an image for a video task', async () => {
  for (const path of ['/svg', '/svg-as-png', '/html-untyped']) {
    const err = await failure(openResult(url(path), 'image', local, AbortSignal.timeout(5000)));
    expect(err.kind).toBe('unusable');
    expect(err.message).toMatch(/not an allowed image/);
  }
  expect((await failure(openResult(url('/png'), 'video', local, AbortSignal.timeout(5000)))).kind).toBe('unusable');
});

it('cuts an endless body at the byte cap of its media type and drops the connection', async () => {
  const r = await openResult(url('/endless'), 'video', local, AbortSignal.timeout(10_000));
  expect(r.contentType).toBe('video/mp4');
  const err = await failure(readAll(r.body));
  expect(err.kind).toBe('unusable');
  expect(err.message).toMatch(/larger than the video cap of 1048576/);
  // No socket left held open by the abandoned body (closing is asynchronous: 5 s at most).
  await waitFor(() => openSockets.size === 0, 5_000, 'the abandoned socket closed').catch(() => undefined);
  expect(openSockets.size).toBe(0);
});

it('refuses a declared size over the cap before reading the body', async () => {
  const err = await failure(openResult(url('/huge-declared'), 'image', local, AbortSignal.timeout(5000)));
  expect(err).toMatchObject({ kind: 'unusable' });
});

it('ends a dripping body, and a stalled one, at the total deadline', async () => {
  const started = Date.now();
  const r = await openResult(url('/drip'), 'video', local, AbortSignal.timeout(800));
  const err = await failure(readAll(r.body));
  expect(err.kind).toBe('transient');
  expect(err.message).toMatch(/deadline/);
  expect(Date.now() - started).toBeLessThan(3000);
  const stalled = await failure(openResult(url('/stall-head'), 'image', local, AbortSignal.timeout(500)));
  expect(stalled.kind).toBe('transient');
});

it('never follows a redirect into a private or metadata address, and refuses http when private URLs are off', async () => {
  const ref = (path: string): ResultRef => ({ kind: 'url', url: `https://results.example${path}` });
  const meta = await failure(openResult(ref('/to-metadata'), 'image', publicHosts, AbortSignal.timeout(5000)));
  expect(meta.kind).toBe('unusable');
  expect(meta.message).toMatch(/download refused: URL must use https/);
  const internal = await failure(openResult(ref('/to-internal'), 'image', publicHosts, AbortSignal.timeout(5000)));
  expect(internal.message).toMatch(/non-public address \(10\.0\.0\.5/);
  const loop = await failure(openResult(ref('/loop'), 'image', publicHosts, AbortSignal.timeout(5000)));
  expect(loop.message).toMatch(/more than 3 redirects/);
  const direct = await failure(openResult(url('/png'), 'image', { ...local, allowPrivate: false }, AbortSignal.timeout(5000)));
  expect(direct.kind).toBe('unusable');
  // A public host that passes the policy works through the same path.
  const ok = await openResult(ref('/png'), 'image', publicHosts, AbortSignal.timeout(5000));
  expect(ok.contentType).toBe('image/png');
  ok.body.close();
});

it('sends an adapter header (an API key) to the URL it named only, never to a redirect target', async () => {
  const ref: ResultRef = { kind: 'url', url: 'https://results.example/to-other-cdn', headers: { 'x-goog-api-key': 'secret-key' } };
  const r = await openResult(ref, 'image', publicHosts, AbortSignal.timeout(5000));
  await readAll(r.body);
  expect(seenHeaders['/to-other-cdn']['x-goog-api-key']).toBe('secret-key');
  expect(seenHeaders['/png']['x-goog-api-key']).toBeUndefined();
});

it('classifies expired results as unusable and busy upstreams as transient', async () => {
  expect((await failure(openResult(url('/gone'), 'image', local, AbortSignal.timeout(5000)))).kind).toBe('unusable');
  expect((await failure(openResult(url('/busy'), 'image', local, AbortSignal.timeout(5000)))).kind).toBe('transient');
});

it('checks inline results (Gemini base64) against the same allow-list and cap', async () => {
  const ok = await openResult({ kind: 'inline', data: png, contentType: 'image/png' }, 'image', local, AbortSignal.timeout(1000));
  expect(ok.contentType).toBe('image/png');
  expect((await failure(openResult({ kind: 'inline', data: svg, contentType: 'image/png' }, 'image', local, AbortSignal.timeout(1000)))).kind).toBe('unusable');
  const big = Buffer.concat([png, Buffer.alloc(2 * 1024 * 1024)]);
  expect((await failure(openResult({ kind: 'inline', data: big, contentType: 'image/png' }, 'image', local, AbortSignal.timeout(1000)))).kind).toBe('unusable');
});

it('keeps only as many outputs as the task asked for', () => {
  const refs: ResultRef[] = [url('/png'), url('/png'), url('/png')];
  expect(capOutputs(refs, 'image')).toHaveLength(1);
  expect(capOutputs(refs, 'video')).toHaveLength(1);
});
