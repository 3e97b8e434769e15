// Reference media in the submit path: real files of known lengths served from a local
// server, measured, billed and limited; unreadable, mislabelled and slow references refused with a
// 400 naming them; inline files stored only for created tasks.
import fs from 'node:fs';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { startHarness, Harness } from './harness';

const FIXTURES = path.resolve(__dirname, '../../../packages/media/test/fixtures');
const TYPES: Record<string, string> = { '.mp4': 'video/mp4', '.mp3': 'audio/mpeg', '.wav': 'audio/wav', '.png': 'image/png', '.jpg': 'image/jpeg' };

let h: Harness;
let server: http.Server;
let base: string;
const hung: http.ServerResponse[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/slow.mp4') return void hung.push(res); // never answers
    const file = path.join(FIXTURES, path.basename(req.url ?? ''));
    if (!fs.existsSync(file)) return void res.writeHead(404).end();
    const bytes = fs.readFileSync(file);
    res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream', 'Content-Length': bytes.length });
    res.end(bytes);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  h = await startHarness('refmedia', { INSTANT_WAIT_MS: '0', MEDIA_TIMEOUT_MS: '1500' });
});
afterAll(async () => {
  await h.assertLedgerInvariant();
  await h.close();
  for (const r of hung) r.destroy();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const file = (name: string) => `${base}/${name}`;
const dataUri = (name: string, mime: string) => `data:${mime};base64,${fs.readFileSync(path.join(FIXTURES, name)).toString('base64')}`;
const inputsDir = () => path.join(h.deps.config.DATA_DIR, 'inputs');
const submit = (auth: Record<string, string>, body: object) => request(h.app).post('/api/video/generate').set(auth).send({ prompt: 'p', ...body });

describe('billing by measured length', () => {
  it('video-b bills duration + the reference videos\' started seconds (5 + ceil(12.5 + 3)) = 21 s at 720p official', async () => {
    const a = await h.newAccount({ balanceCents: 10_000 });
    const res = await submit(a.auth, { model: 'video-b-2.5', duration: 5, media: [{ type: 'video', url: file('video-12.5s.mp4') }, { type: 'video', url: file('video-3s.mp4') }] });
    expect(res.status).toBe(200);
    const task = await h.deps.db.task.findUniqueOrThrow({ where: { id: res.body.taskId } });
    expect(task.billedSeconds).toBe(21);
    expect(task.costCents).toBe(488); // 21 x 0.232 USD = 4.872 USD -> 488 cents
    expect((await request(h.app).get('/api/balance').set(a.auth)).body.balanceCents).toBe(10_000 - 488);
  });

  it('the 402 body carries the same measured cost', async () => {
    // Above the cost's lower bound (so the references are read), below the measured cost.
    const a = await h.newAccount({ balanceCents: 200 });
    const res = await submit(a.auth, { model: 'video-b-2.5', duration: 5, media: [{ type: 'video', url: file('video-12.5s.mp4') }, { type: 'video', url: file('video-3s.mp4') }] });
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({ code: 'insufficient_balance', costCents: 488, balanceCents: 200 });
  });

  it('lip-sync bills the audio\'s length: a 2.16 s MP3 makes a 3 s video at 768p (3 x 0.043 = 13 cents)', async () => {
    const a = await h.newAccount();
    const res = await submit(a.auth, { model: 'video-a-h3', ref_mode: 'lip-sync', media: [{ type: 'image', url: file('image.png') }, { type: 'audio', url: file('audio-2s.mp3') }] });
    expect(res.status).toBe(200);
    const task = await h.deps.db.task.findUniqueOrThrow({ where: { id: res.body.taskId } });
    expect([task.billedSeconds, task.costCents]).toEqual([3, 13]);
  });

  it('lip-sync with inline audio (1.5 s WAV data URI) bills 2 s and stores the file for the provider', async () => {
    const a = await h.newAccount();
    const res = await submit(a.auth, {
      model: 'video-a-h3',
      ref_mode: 'lip-sync',
      resolution: '480p',
      media: [{ type: 'image', url: file('image.jpg') }, { type: 'audio', url: dataUri('audio-1.5s.wav', 'audio/wav') }],
    });
    expect(res.status).toBe(200);
    const task = await h.deps.db.task.findUniqueOrThrow({ where: { id: res.body.taskId }, include: { inlineFiles: true } });
    expect([task.billedSeconds, task.costCents]).toEqual([2, 2]); // 2 x 0.007 = 1.4 cents -> 2
    // The URL image is snapshotted like the inline audio: both are our copies.
    expect(task.inlineFiles.map((f) => f.mime).sort()).toEqual(['audio/wav', 'image/jpeg']);
    // The provider's copy: a signed URL (inputs are private).
    const url = new URL((task.params as { media: { url: string }[] }).media[1].url);
    const stored = await request(h.app).get(url.pathname + url.search);
    expect(Buffer.compare(stored.body, fs.readFileSync(path.join(FIXTURES, 'audio-1.5s.wav')))).toBe(0);
  });
});

describe('limits and refusals, each a 400 naming the reference', () => {
  // Bodies are built lazily: the fixture server's port is known only after beforeAll.
  const cases: [string, () => Record<string, unknown>, string, RegExp][] = [
    ['video-b-2.0 reference videos over 15 s in total', () => ({ model: 'video-b-2.0', media: [{ type: 'video', url: file('video-12.5s.mp4') }, { type: 'video', url: file('video-3s.mp4') }] }), 'media[1]', /15 s/],
    ['video-b-2.5 reference video over 30 s', () => ({ model: 'video-b-2.5', media: [{ type: 'video', url: file('video-31s.mp4') }] }), 'media[0]', /30 s/],
    ['lip-sync audio over 15 s', () => ({ model: 'video-a-h3', ref_mode: 'lip-sync', media: [{ type: 'image', url: file('image.png') }, { type: 'audio', url: file('audio-16s.mp3') }] }), 'media[1]', /15 s/],
    ['a text file named .mp4', () => ({ model: 'video-b-2.5', media: [{ type: 'video', url: file('not-a-video.mp4') }] }), 'media[0].url', /./],
    ['an image sent as a video', () => ({ model: 'video-b-2.5', media: [{ type: 'video', url: file('image.png') }] }), 'media[0].url', /./],
    ['a reference that answers 404', () => ({ model: 'video-b-2.5', media: [{ type: 'video', url: file('missing.mp4') }] }), 'media[0].url', /404/],
  ];
  it.each(cases)('%s', async (_name, body, pathName, message) => {
    const a = await h.newAccount();
    const res = await submit(a.auth, body());
    expect(res.status).toBe(400);
    expect(res.body.details[0]).toEqual({ path: pathName, message: expect.stringMatching(message) });
    expect(await h.deps.db.task.count({ where: { accountId: a.id } })).toBe(0);
  });

  it('a server that never answers does not hold the submit past MEDIA_TIMEOUT_MS', async () => {
    const a = await h.newAccount();
    const started = Date.now();
    const res = await submit(a.auth, { model: 'video-b-2.5', media: [{ type: 'video', url: file('slow.mp4') }] });
    const elapsed = Date.now() - started;
    expect(res.status).toBe(400);
    expect(res.body.details[0].path).toBe('media[0].url');
    expect(elapsed).toBeLessThan(1500 + 1500);
  });

  it('a rejected submit leaves no file behind, and neither does a refused payment', async () => {
    const a = await h.newAccount({ balanceCents: 1 });
    const rich = await h.newAccount({ balanceCents: 10_000 });
    const inline = { type: 'image', url: dataUri('image.png', 'image/png') };
    const bad = await submit(rich.auth, { model: 'video-b-2.5', media: [inline, { type: 'video', url: file('not-a-video.mp4') }] });
    expect(bad.status).toBe(400);
    const poor = await submit(a.auth, { model: 'video-b-2.5', media: [inline] });
    expect(poor.status).toBe(402);
    const dirs = fs.existsSync(inputsDir()) ? fs.readdirSync(inputsDir()) : [];
    const mine = await h.deps.db.task.findMany({ where: { accountId: { in: [a.id, rich.id] } } });
    expect(mine).toHaveLength(0);
    // Input folders are random: each one on disk belongs to a stored input of a created task.
    const stored = await h.deps.db.inlineFile.findMany({ select: { storageKey: true } });
    expect(dirs.filter((d) => !stored.some((f) => f.storageKey.startsWith(`inputs/${d}/`)))).toEqual([]);
  });
});

describe('URL policy with ALLOW_PRIVATE_MEDIA_URLS off', () => {
  let strict: Harness;
  beforeAll(async () => {
    strict = await startHarness('refstrict', { INSTANT_WAIT_MS: '0', ALLOW_PRIVATE_MEDIA_URLS: 'false' });
  });
  afterAll(async () => strict.close());

  it.each([
    ['http:// URL', 'http://example.com/a.mp4'],
    ['loopback', 'https://127.0.0.1/a.mp4'],
    ['localhost', 'https://localhost/a.mp4'],
    ['private 10/8', 'https://10.1.2.3/a.mp4'],
    ['private 192.168/16', 'https://192.168.0.10/a.mp4'],
    ['link-local metadata', 'https://169.254.169.254/latest/meta-data'],
    ['IPv6 loopback', 'https://[::1]/a.mp4'],
  ])('%s is refused before anything is fetched', async (_n, url) => {
    const a = await strict.newAccount();
    const res = await request(strict.app).post('/api/video/generate').set(a.auth).send({ model: 'video-b-2.5', prompt: 'p', media: [{ type: 'video', url }] });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_media');
    expect(res.body.details[0].path).toBe('media[0].url');
  });
});
