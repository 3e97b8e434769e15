// Inline images of a large body are written to storage while the body arrives. On the real
// Postgres and Redis: what a client sees (status, code, message, stored bytes, idempotent replay)
// is the same as for the same body parsed in memory, and no file is left behind by a request that
// gives no task.
import fs from 'node:fs';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { startHarness, Harness } from './harness';

jest.setTimeout(30_000);

let h: Harness;
let server: http.Server;
let port: number;

beforeAll(async () => {
  h = await startHarness('large_inline', { INSTANT_WAIT_MS: '0' });
  server = h.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await h.assertLedgerInvariant();
  await h.close();
});

/** A PNG header followed by `size - 8` bytes that differ from file to file. */
function pngBytes(size: number, seed: number): Buffer {
  const b = Buffer.alloc(size);
  for (let i = 8; i + 4 <= size; i += 4) b.writeUInt32LE(((i + seed) * 2654435761) >>> 0, i);
  Buffer.from('\x89PNG\r\n\x1a\n', 'latin1').copy(b, 0);
  return b;
}
const dataUri = (bytes: Buffer, mime = 'image/png') => `data:${mime};base64,${bytes.toString('base64')}`;

/** Stored input files (not the driver's dotfile sidecars or temporary files). */
function storedInputs(): string[] {
  const root = path.join(h.deps.config.DATA_DIR, 'files', 'inputs');
  if (!fs.existsSync(root)) return [];
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.name.startsWith('.')) continue;
      if (e.isDirectory()) walk(path.join(dir, e.name));
      else out.push(path.relative(root, path.join(dir, e.name)));
    }
  };
  walk(root);
  return out.sort();
}

/** Waits (on the condition, up to 5 s) until the stored inputs are exactly `n` files. */
async function inputsSettleAt(n: number): Promise<string[]> {
  const until = Date.now() + 5000;
  for (;;) {
    const files = storedInputs();
    if (files.length === n || Date.now() > until) return files;
    await new Promise((r) => setImmediate(r));
  }
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** POST with Content-Length (bodies under 256 KiB are parsed in memory) or chunked (parsed as it arrives). */
function post(pathname: string, body: string, auth: Record<string, string>, mode: 'length' | 'chunked', extra: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const bytes = Buffer.from(body);
    const headers: Record<string, string | number> = { 'content-type': 'application/json', ...auth, ...extra };
    if (mode === 'length') headers['content-length'] = bytes.length;
    else headers['transfer-encoding'] = 'chunked';
    const req = http.request({ port, host: '127.0.0.1', method: 'POST', path: pathname, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    if (mode === 'length') req.end(bytes);
    else {
      // Odd piece sizes: base64 groups, escapes and the header are cut everywhere.
      for (let at = 0; at < bytes.length; at += 7777) req.write(bytes.subarray(at, at + 7777));
      req.end();
    }
  });
}

const imageBody = (images: string[], extra: Record<string, unknown> = {}) => JSON.stringify({ model: 'image-b-2.5', prompt: 'p', images, ...extra });

it('stores the images of a large body while it arrives: the provider is given exactly the bytes sent', async () => {
  const a = await h.newAccount({ balanceCents: 10_000 });
  const files = [pngBytes(300_000, 1), pngBytes(200_000, 2), pngBytes(1000, 3)];
  const res = await post('/api/image/generate', imageBody(files.map((f) => dataUri(f))), a.auth, 'length');
  expect(res.status).toBe(200);
  const task = await h.deps.db.task.findUniqueOrThrow({ where: { id: res.body.taskId as string }, include: { inlineFiles: true } });
  const urls = (task.params as { images: { url: string }[] }).images.map((i) => i.url);
  expect(urls).toHaveLength(3);
  for (const [i, u] of urls.entries()) {
    expect(u.startsWith(`${h.deps.config.PUBLIC_BASE_URL}/files/inputs/`)).toBe(true);
    const url = new URL(u);
    const copy = await request(h.app).get(url.pathname + url.search).buffer(true).parse((r, cb) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => cb(null, Buffer.concat(chunks)));
    });
    expect(copy.status).toBe(200);
    expect(copy.headers['content-type']).toMatch(/^image\/png/);
    expect(Buffer.compare(copy.body as Buffer, files[i])).toBe(0);
  }
  expect(task.inlineFiles.map((f) => f.bytes).sort((x, y) => x - y)).toEqual([1000, 200_000, 300_000]);
  // The stand-ins never reach the task.
  expect(JSON.stringify(task.params)).not.toContain('staged-inline:');
  expect(await inputsSettleAt(3)).toHaveLength(3);
  await h.deps.db.inlineFile.deleteMany({ where: { taskId: task.id } });
  for (const f of storedInputs()) await h.deps.storage.delete(`inputs/${f}`);
});

describe('a refused large body answers as the same body parsed in memory, and leaves no file', () => {
  const big = pngBytes(120_000, 7); // 160,000 base64 characters: staged when streamed, a body under 256 KiB
  const over = pngBytes(10 * 1024 * 1024 + 1, 8);
  // Every row has its three cells: jest would take a missing last argument for `done`.
  const cases: [string, () => string, boolean][] = [
    ['png declared as jpeg', () => imageBody([dataUri(big, 'image/jpeg')]), false],
    ['not an image at all', () => imageBody([dataUri(Buffer.alloc(120_000, 1))]), false],
    ['a character outside base64 in the middle', () => { const u = dataUri(big); return imageBody([u.slice(0, 90_000) + '!' + u.slice(90_001)]); }, false],
    ['padding in the middle', () => { const u = dataUri(big); return imageBody([u.slice(0, 90_000) + '=' + u.slice(90_001)]); }, false],
    ['one character too many (length 4n+1)', () => imageBody([dataUri(big) + 'A']), false],
    ['three padding characters', () => imageBody([dataUri(big).replace(/=*$/, '') + '===']), false],
    ['line breaks inside the base64', () => { const u = dataUri(big); return imageBody([u.slice(0, 100_000) + '\n' + u.slice(100_000)]); }, false],
    ['a type not accepted inline', () => imageBody([dataUri(big, 'image/gif')]), false],
    ['an image where a video goes', () => JSON.stringify({ model: 'video-b-2.5', prompt: 'p', duration: 5, media: [{ type: 'video', url: dataUri(big) }] }), false],
    ['a file over 10 MiB', () => imageBody([dataUri(over)]), true],
    ['a model that does not exist', () => JSON.stringify({ model: 'nope', prompt: 'p', images: [dataUri(big)] }), false],
    ['an unknown field', () => imageBody([dataUri(big)], { unexpected: 1 }), false],
  ];

  it.each(cases)('%s', async (_name, make, streamedOnly) => {
    const a = await h.newAccount({ balanceCents: 10_000 });
    const body = make();
    const endpoint = body.includes('video-b') ? '/api/video/generate' : '/api/image/generate';
    const streamed = await post(endpoint, body, a.auth, 'chunked');
    expect(streamed.status).toBeGreaterThanOrEqual(400);
    if (!streamedOnly) {
      const inMemory = await post(endpoint, body, a.auth, 'length');
      expect(streamed).toEqual(inMemory);
    } else {
      expect(streamed.body.code).toBe('invalid_media');
      expect(String(streamed.body.error)).toMatch(/inline file is 10485761 bytes; the limit is 10485760/);
    }
    expect(await inputsSettleAt(0)).toEqual([]);
  });

  it('a charge refused (no balance) and a quote leave no file either', async () => {
    const poor = await h.newAccount({ balanceCents: 0 });
    const body = imageBody([dataUri(big)]);
    const refused = await post('/api/image/generate', body, poor.auth, 'chunked');
    expect(refused.status).toBe(402);
    expect(await post('/api/image/generate', body, poor.auth, 'length')).toEqual(refused);
    const a = await h.newAccount({ balanceCents: 10_000 });
    const quote = await post('/api/image/quote', body, a.auth, 'chunked');
    expect(quote.status).toBe(200);
    expect(await post('/api/image/quote', body, a.auth, 'length')).toEqual(quote);
    expect(await inputsSettleAt(0)).toEqual([]);
  });

  it('a body cut off by the client leaves no file', async () => {
    const a = await h.newAccount({ balanceCents: 10_000 });
    const bytes = Buffer.from(imageBody([dataUri(pngBytes(400_000, 9))]));
    await new Promise<void>((resolve) => {
      const req = http.request({ port, host: '127.0.0.1', method: 'POST', path: '/api/image/generate', headers: { 'content-type': 'application/json', 'content-length': bytes.length, ...a.auth } });
      req.on('error', () => resolve());
      req.on('response', () => resolve());
      req.write(bytes.subarray(0, 300_000), () => setTimeout(() => req.destroy(), 100));
    });
    expect(await inputsSettleAt(0)).toEqual([]);
  });
});

it('a retried large submit with the same idempotency key replays the task and keeps one set of files', async () => {
  const a = await h.newAccount({ balanceCents: 10_000 });
  const body = imageBody([dataUri(pngBytes(150_000, 11))]);
  const first = await post('/api/image/generate', body, a.auth, 'chunked', { 'Idempotency-Key': 'large-1' });
  expect(first.status).toBe(200);
  const again = await post('/api/image/generate', body, a.auth, 'chunked', { 'Idempotency-Key': 'large-1' });
  expect(again.status).toBe(200);
  expect(again.body.taskId).toBe(first.body.taskId);
  // The same body parsed in memory is the same request too.
  const inMemory = await post('/api/image/generate', body, a.auth, 'length', { 'Idempotency-Key': 'large-1' });
  expect(inMemory.body.taskId).toBe(first.body.taskId);
  // A different image under the same key is a different request.
  const other = await post('/api/image/generate', imageBody([dataUri(pngBytes(150_000, 12))]), a.auth, 'chunked', { 'Idempotency-Key': 'large-1' });
  expect([other.status, other.body.code]).toEqual([422, 'idempotency_key_reused']);
  expect(await inputsSettleAt(1)).toHaveLength(1);
});
