// The simulator speaks ModelArk and MiniMax v2 well enough for the real adapters: every #sim:
// directive comes back in the protocol's own signal, and results are the files that were asked for.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createFile, MP4BoxBuffer, type Movie } from 'mp4box';
import { PNG } from 'pngjs';
import type { ImageTaskSpec, VideoTaskSpec } from '@mediagen/catalog';
import { channelSchema, createAdapter, type ChannelAdapter, type RenderRequest, type RenderStatus } from '@mediagen/providers';
import { createSimServer } from '../src/sim-server';
import { eventually } from '../../../test/e2e/support/wait';

let base = '';
let close: () => Promise<void>;
let ark: ChannelAdapter;
let arkBackup: ChannelAdapter;
let mm: ChannelAdapter;

const arkChannel = (id: string, apiKey: string, baseUrl: string) => channelSchema.parse({
  id, protocol: 'modelark', baseUrl: `${baseUrl}/modelark/api/v3`, apiKey, costOrder: 1, reportsViolations: true,
  models: { 'video-b-2.5': 'dreamina-seedance-2-5-260628', 'image-a-5.0': 'seedream-5-0-260128', 'image-b-2.5': 'seedream-4-5-251128', 'image-b-2': 'seedream-4-0-250828' },
});
const mmChannel = (baseUrl: string) => channelSchema.parse({
  id: 'sim-mm', protocol: 'minimax', baseUrl: `${baseUrl}/minimax`, apiKey: 'mm-key', costOrder: 1, reportsViolations: true,
  models: { 'video-a-h3': 'MiniMax-H3' }, effortModels: { '1.5x': 'MiniMax-H3', '2x': 'MiniMax-H3-Max' },
});

beforeAll(async () => {
  const channels = (b: string) => [arkChannel('sim-ark', 'ark-key', b), arkChannel('sim-ark-backup', 'ark-key-2', b), mmChannel(b)];
  const sim = createSimServer({ channels: { channels: channels('http://127.0.0.1:1') }, renderMs: 120, latencyMs: 0 });
  await new Promise<void>((r) => sim.server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(sim.server.address() as AddressInfo).port}`;
  [ark, arkBackup, mm] = [createAdapter(arkChannel('sim-ark', 'ark-key', base)), createAdapter(arkChannel('sim-ark-backup', 'ark-key-2', base)), createAdapter(mmChannel(base))];
  close = () => new Promise((r) => { sim.server.closeAllConnections(); sim.server.close(() => r()); });
});
afterAll(async () => {
  [ark, arkBackup, mm].forEach((a) => a.close());
  await close();
});

let n = 0;
const tag = () => `run-${Date.now()}-${++n}`;
const videoB = (prompt: string, extra: Partial<VideoTaskSpec> = {}): VideoTaskSpec => ({
  type: 'video', model: 'video-b-2.5', prompt: `${prompt} ${tag()}`, duration: 6, ratio: '9:16', resolution: '480p', tier: 'third-party',
  variant: null, refMode: null, effort: null, seed: null, optimizePrompt: null, media: [], firstFrame: null, lastFrame: null, ...extra,
});
const h3 = (prompt: string, extra: Partial<VideoTaskSpec> = {}): VideoTaskSpec => ({
  ...videoB(prompt), model: 'video-a-h3', resolution: '768p', ratio: '16:9', duration: 4, tier: null, refMode: 'omni', effort: '1x', ...extra,
});
const image = (prompt: string, extra: Partial<ImageTaskSpec> = {}): ImageTaskSpec => ({ type: 'image', model: 'image-a-5.0', prompt: `${prompt} ${tag()}`, ratio: '16:9', resolution: '1k', images: [], ...extra });
const req = (spec: VideoTaskSpec | ImageTaskSpec): RenderRequest => ({ taskId: 't', attemptId: `a-${++n}`, spec, outputSeconds: spec.type === 'video' ? spec.duration : null, references: [] });

/** Polls the render until it is no longer running (the simulator's render time, then the answer). */
const untilDone = (a: ChannelAdapter, id: string): Promise<RenderStatus> =>
  eventually(`render ${id} finished`, async () => {
    const s = await a.poll(id);
    return s.state !== 'running' && s;
  });
async function download(s: RenderStatus): Promise<Buffer> {
  if (s.state !== 'succeeded' || s.outputs[0]?.kind !== 'url') throw new Error(`expected a URL result, got ${JSON.stringify(s)}`);
  const res = await fetch(s.outputs[0].url);
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}
function movie(buf: Buffer): Movie {
  const f = createFile();
  let m: Movie | undefined;
  f.onReady = (x) => (m = x);
  f.appendBuffer(MP4BoxBuffer.fromArrayBuffer(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length), 0), true);
  f.flush();
  if (!m) throw new Error('not an MP4');
  return m;
}

describe('ModelArk', () => {
  it('posts the finished task to callback_url and keeps the status it was answered with (GET /stats/renders/<id>)', async () => {
    const answers = [429, 200];
    const hooks: string[] = [];
    const receiver = http.createServer((r, res) => {
      hooks.push(r.url ?? '');
      res.writeHead(answers.shift() ?? 200).end();
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/upstream/sim-ark?task=t`;
    try {
      const stats = (id: string) => fetch(`${base}/stats/renders/${id}`).then((r) => r.json() as Promise<{ callbackAt: number | null; callbackStatus: number | null }>);
      const ids: string[] = [];
      for (let i = 0; i < 2; i++) ids.push((await ark.submit({ ...req(videoB('a heron #sim:delay=50')), callbackUrl: hookUrl })).upstreamId);
      await eventually('both callbacks answered', async () => (await Promise.all(ids.map(stats))).every((t) => t.callbackStatus !== null));
      expect(hooks).toHaveLength(2);
      expect([(await stats(ids[0])).callbackStatus, (await stats(ids[1])).callbackStatus].sort()).toEqual([200, 429]);
      // A render submitted without callback_url sends nothing and records nothing.
      const quiet = (await ark.submit(req(videoB('a quiet one #sim:delay=10')))).upstreamId;
      await untilDone(ark, quiet);
      expect(await stats(quiet)).toMatchObject({ callbackAt: null, callbackStatus: null });
    } finally {
      receiver.closeAllConnections();
      await new Promise((r) => receiver.close(r));
    }
  });

  it('renders a Seedance video of the requested duration, ratio and resolution, with usage', async () => {
    const { upstreamId } = await ark.submit(req(videoB('a fox #sim:delay=1500')));
    expect(upstreamId).toMatch(/^r_/);
    expect((await ark.poll(upstreamId)).state).toBe('running');
    const s = await untilDone(ark, upstreamId);
    expect(s.state === 'succeeded' && s.usage).toEqual({ units: 'tokens', amount: Math.round((480 * 854 * 24 * 6) / 1024) });
    const m = movie(await download(s));
    expect(m.duration / m.timescale).toBeCloseTo(6, 3);
    expect([m.videoTracks[0].video!.width, m.videoTracks[0].video!.height]).toEqual([480, 854]);
  });

  it('answers a Seedream image at once, at the requested ratio and the nearest size the version takes', async () => {
    // Seedream 5.0 lite renders at least 3,686,400 pixels: a 1k 16:9 image comes at the 2K size.
    const r = await ark.submit(req(image('a bicycle')));
    expect(r.status?.state).toBe('succeeded');
    const png = PNG.sync.read(await download(r.status!));
    expect([png.width, png.height]).toEqual([2560, 1440]);
  });

  it.each([
    ['1K on Seedream 4.5', { model: 'seedream-4-5-251128', size: '1K' }, /supports 2K, 4K/],
    ['1280x720 on Seedream 4.5', { model: 'seedream-4-5-251128', size: '1280x720' }, /921600 pixels\) is outside \[3686400, 16777216\]/],
    ['4096x4096 on Seedream 5.0 lite', { model: 'seedream-5-0-260128', size: '4096x4096' }, /outside \[3686400, 10404496\]/],
    ['15 reference images on Seedream 4.0', { model: 'seedream-4-0-250828', size: '2K', image: Array.from({ length: 15 }, (_, i) => `https://f/${i}.png`) }, /at most 14 reference images/],
  ])('refuses what Seedream refuses: %s (400 InvalidParameter)', async (_what, change, message) => {
    const body = { prompt: `x ${tag()}`, response_format: 'url', ...change };
    const res = await fetch(`${base}/modelark/api/v3/images/generations`, { method: 'POST', headers: { Authorization: 'Bearer ark-key', 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status).toBe(400);
    const answer = (await res.json()) as { error: { code: string; message: string } };
    expect(answer.error).toMatchObject({ code: 'InvalidParameter', message: expect.stringMatching(message) });
  });

  it('refuses in its own signals: input 400 at submit, output in the failed task or image entry', async () => {
    await expect(ark.submit(req(videoB('x #sim:violation-input')))).rejects.toMatchObject({ kind: 'violation', httpStatus: 400 });
    const out = await untilDone(ark, (await ark.submit(req(videoB('x #sim:violation')))).upstreamId);
    expect(out.state === 'failed' && out.error).toMatchObject({ kind: 'violation', message: expect.stringContaining('OutputVideoSensitiveContentDetected') });
    const img = await ark.submit(req(image('x #sim:violation')));
    expect(img.status?.state === 'failed' && img.status.error.kind).toBe('violation');
  });

  it('rate-limits with a 429 and its hint, then accepts', async () => {
    const r = req(videoB('x #sim:rate-limit=1 #sim:flaky=1'));
    await expect(ark.submit(r)).rejects.toMatchObject({ kind: 'transient', httpStatus: 429, retryAfterMs: 1000 });
    await expect(ark.submit(r)).rejects.toMatchObject({ kind: 'transient', httpStatus: 503 });
    await expect(ark.submit(r)).resolves.toHaveProperty('upstreamId');
  });

  it('fails the first channel only with #sim:fail-first, expires with #sim:expired, forgets with #sim:lost', async () => {
    const r = req(videoB('x #sim:fail-first'));
    expect((await untilDone(ark, (await ark.submit(r)).upstreamId)).state).toBe('failed');
    expect((await untilDone(arkBackup, (await arkBackup.submit(r)).upstreamId)).state).toBe('succeeded');
    const expired = await untilDone(ark, (await ark.submit(req(videoB('x #sim:expired')))).upstreamId);
    expect(expired.state === 'failed' && expired.error.message).toMatch(/expired/);
    const lost = req(videoB('x #sim:lost'));
    await expect(ark.poll((await ark.submit(lost)).upstreamId)).rejects.toMatchObject({ kind: 'lost' });
    expect((await untilDone(ark, (await ark.submit(lost)).upstreamId)).state).toBe('succeeded');
  });

  it('succeeds without a file on #sim:no-file, and cancels only queued tasks', async () => {
    const none = await untilDone(ark, (await ark.submit(req(videoB('x #sim:no-file')))).upstreamId);
    expect(none).toMatchObject({ state: 'succeeded', outputs: [] });
    const { upstreamId } = await ark.submit(req(videoB('x #sim:delay=2000')));
    await ark.cancel!(upstreamId);
    const s = await ark.poll(upstreamId);
    expect(s.state === 'failed' && s.error.message).toMatch(/cancelled/);
  });
});

describe('MiniMax v2', () => {
  it('renders an H3 video of the requested duration, ratio and resolution, with output seconds', async () => {
    const { upstreamId } = await mm.submit(req(h3('a dancer')));
    const s = await untilDone(mm, upstreamId);
    expect(s.state === 'succeeded' && s.usage).toEqual({ units: 'seconds', amount: 4 });
    const m = movie(await download(s));
    expect(m.duration / m.timescale).toBeCloseTo(4, 3);
    // MiniMax-H3 renders 2K only: a 768p task comes back at 2K, a larger video than sold.
    expect([m.videoTracks[0].video!.width, m.videoTracks[0].video!.height]).toEqual([2560, 1440]);
  });

  it.each([
    ['a resolution other than 2K', { resolution: '768P' }, /only supports 2K/],
    ['a duration under 4 s', { duration: 3 }, /4 to 15/],
    ['a seed', { seed: 7 }, /seed/],
    ['no text part', { content: [{ type: 'image_url', image_url: { url: 'https://f/p.png' }, role: 'reference_image' }] }, /non-empty text/],
    ['frames with references', { content: [{ type: 'text', text: 'x' }, { type: 'image_url', image_url: { url: 'https://f/1.png' }, role: 'first_frame' }, { type: 'image_url', image_url: { url: 'https://f/p.png' }, role: 'reference_image' }] }, /cannot be used together/],
    ['reference audio alone', { content: [{ type: 'text', text: 'x' }, { type: 'audio_url', audio_url: { url: 'https://f/a.mp3' }, role: 'reference_audio' }] }, /requires at least one reference image/],
    ['text-to-video with an adaptive ratio', { ratio: 'adaptive' }, /concrete ratio/],
  ])('refuses what MiniMax-H3 refuses: %s (400, 2013)', async (_what, change, message) => {
    const body = { model: 'MiniMax-H3', content: [{ type: 'text', text: `x ${tag()}` }], resolution: '2K', duration: 5, ratio: '16:9', ...change };
    const res = await fetch(`${base}/minimax/v2/video_generation`, { method: 'POST', headers: { Authorization: 'Bearer mm-key', 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status).toBe(400);
    const answer = (await res.json()) as { error: { type: string; message: string } };
    expect(answer.error.type).toBe('invalid_request_error');
    expect(answer.error.message).toMatch(message);
    expect(answer.error.message).toMatch(/\(2013\)$/);
  });

  it('refuses in each of its signals', async () => {
    await expect(mm.submit(req(h3('x #sim:violation-input')))).rejects.toMatchObject({ kind: 'violation', httpStatus: 422 });
    await expect(mm.submit(req(h3('x #sim:violation-legacy')))).rejects.toMatchObject({ kind: 'violation' });
    const out = await untilDone(mm, (await mm.submit(req(h3('x #sim:violation')))).upstreamId);
    expect(out.state === 'failed' && out.error.kind).toBe('violation');
  });

  it('rate-limits with a 429, expires, forgets and cancels', async () => {
    const r = req(h3('x #sim:rate-limit=1'));
    await expect(mm.submit(r)).rejects.toMatchObject({ kind: 'transient', httpStatus: 429, retryAfterMs: 1000 });
    await expect(mm.submit(r)).resolves.toHaveProperty('upstreamId');
    const expired = await untilDone(mm, (await mm.submit(req(h3('x #sim:expired')))).upstreamId);
    expect(expired.state === 'failed' && expired.error.message).toMatch(/expired/);
    await expect(mm.poll((await mm.submit(req(h3('x #sim:lost')))).upstreamId)).rejects.toMatchObject({ kind: 'lost' });
    const { upstreamId } = await mm.submit(req(h3('x #sim:hang')));
    await mm.cancel!(upstreamId);
    const s = await mm.poll(upstreamId);
    expect(s.state === 'failed' && s.error.message).toMatch(/cancelled/);
  });
});

describe('ModelArk task list (orphan search)', () => {
  it('lists the channel\'s tasks newest first as {items, total}, filtered, and the adapter finds a render by the seed of its attempt', async () => {
    const sent = new Date();
    const r = req(videoB('an orphan heron'));
    const { upstreamId } = await ark.submit(r);
    await ark.submit(req(videoB('another task')));
    const list = (await (await fetch(`${base}/modelark/api/v3/contents/generations/tasks?page_num=1&page_size=2&filter.model=dreamina-seedance-2-5-260628`, { headers: { Authorization: 'Bearer ark-key' } })).json()) as { items: unknown[]; total: number };
    expect(list.items).toHaveLength(2);
    expect(list.total).toBeGreaterThanOrEqual(2);
    expect(list.items[1]).toMatchObject({ id: upstreamId, model: 'dreamina-seedance-2-5-260628', ratio: '9:16', duration: 6, seed: expect.any(Number) });
    const byId = await (await fetch(`${base}/modelark/api/v3/contents/generations/tasks?filter.task_ids=${upstreamId}`, { headers: { Authorization: 'Bearer ark-key' } })).json();
    expect(byId).toEqual({ items: [expect.objectContaining({ id: upstreamId })], total: 1 });
    await expect(ark.findOrphan!({ ...r, submitSentAt: sent })).resolves.toBe(upstreamId);
    // Another attempt of the same request, and another channel (key) of the same simulator, find nothing.
    await expect(ark.findOrphan!({ ...r, attemptId: 'other', submitSentAt: sent })).resolves.toBeNull();
    await expect(arkBackup.findOrphan!({ ...r, submitSentAt: sent })).resolves.toBeNull();
  });
});

it('refuses Seedance 2.x reference audio without a reference image or video (400 InvalidParameter)', async () => {
  const body = { model: 'dreamina-seedance-2-5-260628', content: [{ type: 'text', text: `x ${tag()}` }, { type: 'audio_url', audio_url: { url: 'https://f/a.mp3' }, role: 'reference_audio' }], ratio: '16:9', duration: 5 };
  const res = await fetch(`${base}/modelark/api/v3/contents/generations/tasks`, { method: 'POST', headers: { Authorization: 'Bearer ark-key', 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBe(400);
  expect(((await res.json()) as { error: { code: string } }).error.code).toBe('InvalidParameter');
});
