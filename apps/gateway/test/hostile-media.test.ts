// Hostile reference media on the real Postgres and Redis: a reference server that lies about its
// ranges cannot freeze the gateway, and a key without balance makes it fetch nothing.
import fs from 'node:fs';
import path from 'node:path';
import http from 'node:http';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { startHarness, Harness } from './harness';
import { loopWatch } from './loop-watch';

jest.setTimeout(60_000);

const FIXTURES = path.resolve(__dirname, '../../../packages/media/test/fixtures');
const webmHead = fs.readFileSync(path.join(FIXTURES, 'video-2s.webm')).subarray(0, 4096);

let h: Harness;
let server: http.Server;
let base: string;
let hits = 0;
let switchHits = 0;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const shownFirst = fs.readFileSync(path.join(FIXTURES, 'image.png'));
const shownLater = fs.readFileSync(path.join(FIXTURES, 'image.jpg'));

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits++;
    if (req.url === '/switch.png') {
      // Recognises the first fetch (ours) and shows it one picture; every later one gets another.
      const img = switchHits++ === 0 ? shownFirst : shownLater;
      res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': img.length });
      return void res.end(img);
    }
    if (req.url === '/clip.mp4') {
      // What a recognising server shows the inspector; the provider would be shown something else.
      const clip = fs.readFileSync(path.join(FIXTURES, 'video-3s.mp4'));
      res.writeHead(200, { 'Content-Type': 'video/mp4', 'Content-Length': clip.length });
      return void res.end(clip);
    }
    const m = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? '');
    const start = m ? Number(m[1]) : 0;
    const end = m ? Number(m[2]) : 65535;
    // Every range "exists" and the total is unknown (`/*`): the parser is told nothing ends.
    const body = Buffer.alloc(end - start + 1);
    if (start === 0) webmHead.copy(body);
    res.writeHead(206, { 'Content-Type': 'video/webm', 'Content-Range': `bytes ${start}-${end}/*`, 'Content-Length': body.length });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  h = await startHarness('hostile_media', { INSTANT_WAIT_MS: '0', MEDIA_TIMEOUT_MS: '8000' });
});
afterAll(async () => {
  await h.assertLedgerInvariant();
  await h.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

it('1: a lying-range Matroska reference gets its 400 while /healthz keeps answering within 100 ms', async () => {
  const a = await h.newAccount({ balanceCents: 10_000 });
  const listener = h.listen(0);
  const port = (listener.address() as AddressInfo).port;
  const body = { model: 'video-b-2.5', prompt: 'p', duration: 5, media: [{ type: 'video', url: `${base}/lying.webm` }] };
  // Once unmeasured: the first submit loads the parsers' modules (a one-off, not the input's cost).
  expect((await request(listener).post('/api/video/generate').set(a.auth).send(body)).status).toBe(400);
  const worst: number[] = [];
  let done = false;
  const held = loopWatch();
  const probe = (async () => {
    while (!done) {
      const t = Date.now();
      await new Promise<void>((resolve) => http.get({ port, path: '/healthz', agent: false }, (res) => res.resume().on('end', resolve)));
      worst.push(Date.now() - t);
      await new Promise((r) => setTimeout(r, 20)); // the probe's sampling interval, not a wait
    }
  })();
  const res = await request(listener).post('/api/video/generate').set(a.auth).send(body);
  done = true;
  await probe;
  held.stop();
  listener.close();
  expect(res.status).toBe(400);
  expect(res.body.code).toBe('invalid_media');
  expect(worst.length).toBeGreaterThan(0);
  // The gateway (in this process) never held its event loop 100 ms: /healthz could always answer
  // within that. Held time is timer lateness capped by this process's CPU time (loop-watch.ts), so a loaded shared machine does not count. Before the fix /healthz stopped
  // answering for ~18 minutes and the submit never came back.
  expect(held.max()).toBeLessThan(100);
  expect(Math.max(...worst)).toBeLessThan(2000);
});

it('3: a key with no balance makes the gateway fetch nothing', async () => {
  const a = await h.newAccount({ balanceCents: 0 });
  const before = hits;
  const res = await request(h.app).post('/api/video/generate').set(a.auth)
    .send({ model: 'video-b-2.5', prompt: 'p', duration: 5, media: [{ type: 'video', url: `${base}/any.webm` }] });
  expect(res.status).toBe(402);
  expect(res.body.code).toBe('insufficient_balance');
  expect(hits).toBe(before);
});

it('3: an account at its concurrency limit makes the gateway fetch nothing', async () => {
  const a = await h.newAccount({ balanceCents: 10_000, maxConcurrentTasks: 1 });
  await h.deps.db.account.update({ where: { id: a.id }, data: { tasksInProgress: 1 } });
  const before = hits;
  const res = await request(h.app).post('/api/video/generate').set(a.auth)
    .send({ model: 'video-b-2.5', prompt: 'p', duration: 5, media: [{ type: 'video', url: `${base}/any.webm` }] });
  expect(res.status).toBe(429);
  expect(res.body.code).toBe('too_many_tasks');
  expect(hits).toBe(before);
  await h.deps.db.account.update({ where: { id: a.id }, data: { tasksInProgress: 0 } });
});

it('4: the provider is given our stored copy of exactly the bytes that were measured', async () => {
  const a = await h.newAccount({ balanceCents: 10_000 });
  const res = await request(h.app).post('/api/video/generate').set(a.auth)
    .send({ model: 'video-b-2.5', prompt: 'p', duration: 5, media: [{ type: 'video', url: `${base}/clip.mp4` }] });
  expect(res.status).toBe(200);
  const task = await h.deps.db.task.findUniqueOrThrow({ where: { id: res.body.taskId }, include: { inlineFiles: true } });
  const given = (task.params as { media: { url: string }[] }).media[0].url;
  expect(given.startsWith(`${h.deps.config.PUBLIC_BASE_URL}/files/inputs/`)).toBe(true);
  expect(given).not.toContain(base);
  const url = new URL(given);
  const copy = await request(h.app).get(url.pathname + url.search).buffer(true).parse((r, cb) => {
    const chunks: Buffer[] = [];
    r.on('data', (c: Buffer) => chunks.push(c));
    r.on('end', () => cb(null, Buffer.concat(chunks)));
  });
  expect(copy.status).toBe(200);
  expect(Buffer.compare(copy.body as Buffer, fs.readFileSync(path.join(FIXTURES, 'video-3s.mp4')))).toBe(0);
  expect(task.billedSeconds).toBe(5 + 3); // duration + the measured reference's started seconds
});

it('4: an image URL reference is snapshotted too: the provider is given our copy of the very bytes we checked', async () => {
  const a = await h.newAccount({ balanceCents: 10_000 });
  const res = await request(h.app).post('/api/image/generate').set(a.auth)
    .send({ model: 'image-b-2.5', prompt: 'p', images: [`${base}/switch.png`] });
  expect(res.status).toBe(200);
  expect(switchHits).toBe(1); // fetched once, by the inspector
  const task = await h.deps.db.task.findUniqueOrThrow({ where: { id: res.body.taskId }, include: { inlineFiles: true } });
  const given = (task.params as { images: (string | { url: string })[] }).images[0];
  const givenUrl = typeof given === 'string' ? given : given.url;
  expect(givenUrl.startsWith(`${h.deps.config.PUBLIC_BASE_URL}/files/inputs/`)).toBe(true);
  expect(givenUrl).not.toContain(base);
  expect(task.inlineFiles).toHaveLength(1);
  expect(task.inlineFiles[0].mime).toBe('image/png');
  // What the provider downloads from that URL: exactly the bytes the inspector was shown.
  const url = new URL(givenUrl);
  const copy = await request(h.app).get(url.pathname + url.search).buffer(true).parse((r, cb) => {
    const chunks: Buffer[] = [];
    r.on('data', (c: Buffer) => chunks.push(c));
    r.on('end', () => cb(null, Buffer.concat(chunks)));
  });
  expect(copy.status).toBe(200);
  expect(sha(copy.body as Buffer)).toBe(sha(shownFirst));
  expect(sha(copy.body as Buffer)).not.toBe(sha(shownLater));
  // The server's later answer is never seen by anyone but a direct visitor.
  expect(switchHits).toBe(1);
});

it('4: a WAV whose header claims 1 s over 20 s of samples is limited and billed on the 20 s', async () => {
  const a = await h.newAccount({ balanceCents: 10_000 });
  const wav = (seconds: number, claimed: number) => {
    const head = Buffer.alloc(44);
    head.write('RIFF', 0, 'latin1');
    head.writeUInt32LE(36 + claimed * 8000, 4);
    head.write('WAVEfmt ', 8, 'latin1');
    head.writeUInt32LE(16, 16);
    head.writeUInt16LE(1, 20);
    head.writeUInt16LE(1, 22);
    head.writeUInt32LE(8000, 24);
    head.writeUInt32LE(8000, 28);
    head.writeUInt16LE(1, 32);
    head.writeUInt16LE(8, 34);
    head.write('data', 36, 'latin1');
    head.writeUInt32LE(claimed * 8000, 40);
    return `data:audio/wav;base64,${Buffer.concat([head, Buffer.alloc(seconds * 8000, 128)]).toString('base64')}`;
  };
  const png = `data:image/png;base64,${shownFirst.toString('base64')}`;
  const submit = (audio: string) => request(h.app).post('/api/video/generate').set(a.auth)
    .send({ model: 'video-a-h3', prompt: 'p', ref_mode: 'lip-sync', resolution: '480p', media: [{ type: 'image', url: png }, { type: 'audio', url: audio }] });
  // Lip-sync audio is capped at 15 s: 20 s of samples behind a "1 s" header is refused.
  const over = await submit(wav(20, 1));
  expect(over.status).toBe(400);
  expect(JSON.stringify(over.body)).toMatch(/15/);
  // And a "10 s" header over 3 s of samples is billed 3 s, not 10.
  const under = await submit(wav(3, 10));
  expect(under.status).toBe(200);
  const task = await h.deps.db.task.findUniqueOrThrow({ where: { id: under.body.taskId } });
  expect(task.billedSeconds).toBe(3);
});
