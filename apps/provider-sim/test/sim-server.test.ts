// The simulator and the http-jobs adapter together: the protocol, the directives and the
// classification of what the simulator answers.
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';
import type { ImageTaskSpec, VideoTaskSpec } from '@mediagen/catalog';
import { ChannelAdapter, ChannelConfig, createAdapters, DEFAULT_DOWNLOAD_POLICY, openResult, parseChannelConfig, RenderRequest, RenderStatus, ResultBody, ResultRef, UpstreamError } from '@mediagen/providers';
import { createSimServer } from '../src/sim-server';
import { eventually } from '../../../test/e2e/support/wait';

/**
 * The simulator's own http-jobs protocol, one channel per former default channel (the default
 * config now speaks the vendors' protocols; http-jobs stays for tests that need idempotent submits).
 */
function defaultChannelConfig(base: string): ChannelConfig {
  const ch = (id: string, extra: Record<string, unknown>) => ({ id, baseUrl: `${base}/ch/${id}`, apiKey: 'sim-dev-key', ...extra });
  const up = (ids: string[]) => Object.fromEntries(ids.map((id) => [id, `sim/${id}`]));
  return parseChannelConfig({
    channels: [
      ch('sim-video-a', { costOrder: 10, models: up(['video-a-h3']), reportsViolations: true }),
      ch('sim-video-b-lowcost', { tier: 'third-party', costOrder: 10, models: up(['video-b-2.5', 'video-b-2.0', 'video-b-2.0-mini']) }),
      ch('sim-video-b-official', { tier: 'official', costOrder: 30, models: up(['video-b-2.5', 'video-b-2.0-mini']) }),
      ch('sim-video-c', { costOrder: 10, models: up(['video-c-3.1']) }),
      ch('sim-image-main', { costOrder: 10, models: up(['image-a-5.0', 'image-c-2.1']) }),
      ch('sim-image-bd', { costOrder: 10, models: up(['image-b-2.5', 'image-b-2']), reportsViolations: true }),
    ],
  });
}

let adapters: Map<string, ChannelAdapter>;
let close: () => Promise<void>;
let base: string;

beforeAll(async () => {
  // Channel base URLs need the port, so listen first and build the config afterwards.
  const placeholder = defaultChannelConfig('http://127.0.0.1:1');
  const sim = createSimServer({ channels: placeholder, renderMs: 150, latencyMs: 0 });
  await new Promise<void>((r) => sim.server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(sim.server.address() as AddressInfo).port}`;
  adapters = createAdapters(defaultChannelConfig(base));
  close = () => new Promise((r) => { sim.server.closeAllConnections(); sim.server.close(() => r()); });
});
afterAll(async () => {
  for (const a of adapters.values()) a.close();
  await close();
});

const image = (prompt: string, model = 'image-a-5.0', extra: Partial<ImageTaskSpec> = {}): ImageTaskSpec => ({
  type: 'image', model, prompt, ratio: '16:9', resolution: '1k', images: [], ...extra,
});
const video = (prompt: string, model = 'video-a-h3'): VideoTaskSpec => ({
  type: 'video', model, prompt, duration: 5, ratio: '9:16', resolution: '480p', tier: null, variant: null, refMode: 'omni',
  effort: '1x', seed: null, optimizePrompt: false, media: [], firstFrame: null, lastFrame: null,
});
let n = 0;
const req = (spec: ImageTaskSpec | VideoTaskSpec, attemptId = `att-${++n}`): RenderRequest =>
  ({ taskId: `task-${++n}`, attemptId, spec, outputSeconds: spec.type === 'video' ? 5 : null, references: [] });
/** Results go through the one download path (private addresses allowed: the simulator is on loopback). */
const fetchResult = (ref: ResultRef, type: 'image' | 'video') =>
  openResult(ref, type, { ...DEFAULT_DOWNLOAD_POLICY, allowPrivate: true }, AbortSignal.timeout(5000));

/** Polls the render until it is no longer running (the simulator's render time, then the answer). */
const untilDone = (a: ChannelAdapter, id: string): Promise<RenderStatus> =>
  eventually(`render ${id} finished`, async () => {
    const s = await a.poll(id);
    return s.state !== 'running' && s;
  });
/** Copies each lent chunk before asking for the next (the next one may reuse its buffer). */
const readAll = async (body: ResultBody) => {
  const chunks: Buffer[] = [];
  for (let c = await body.nextChunk(); c; c = await body.nextChunk()) chunks.push(Buffer.from(c));
  body.close();
  return Buffer.concat(chunks);
};
const refStats = async (ref: string) => (await fetch(`${base}/stats/refs/${ref}`)).json();

it('renders a PNG at the requested ratio and resolution', async () => {
  const a = adapters.get('sim-image-main')!;
  const { upstreamId } = await a.submit(req(image('a cat', 'image-a-5.0', { resolution: '2k' })));
  const s = await untilDone(a, upstreamId);
  expect(s.state).toBe('succeeded');
  if (s.state !== 'succeeded') return;
  const file = await fetchResult(s.outputs[0], 'image');
  expect(file.contentType).toBe('image/png');
  const png = PNG.sync.read(await readAll(file.body));
  expect([png.width, png.height]).toEqual([2048, 1152]);
});

it('renders a real MP4 for video models', async () => {
  const a = adapters.get('sim-video-a')!;
  const { upstreamId } = await a.submit(req(video('a dog')));
  const s = await untilDone(a, upstreamId);
  if (s.state !== 'succeeded') throw new Error(`expected success, got ${s.state}`);
  const file = await fetchResult(s.outputs[0], 'video');
  const bytes = await readAll(file.body);
  expect(file.contentType).toBe('video/mp4');
  expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
});

it('returns the same render for a repeated idempotency key', async () => {
  const a = adapters.get('sim-video-a')!;
  expect(a.capabilities.idempotentSubmit).toBe(true);
  const r = req(video('same'));
  const first = await a.submit(r);
  const again = await a.submit(r);
  expect(again.upstreamId).toBe(first.upstreamId);
  expect(await refStats(r.taskId)).toMatchObject({ submits: 2, renders: [{ id: first.upstreamId }] });
});

it('reports violations explicitly only on channels configured to', async () => {
  const flagged = adapters.get('sim-image-bd')!;
  const quiet = adapters.get('sim-image-main')!;
  const s1 = await untilDone(flagged, (await flagged.submit(req(image('x #sim:violation', 'image-b-2.5')))).upstreamId);
  const s2 = await untilDone(quiet, (await quiet.submit(req(image('x #sim:violation')))).upstreamId);
  expect(s1.state === 'failed' && s1.error.kind).toBe('violation');
  expect(s2.state === 'failed' && s2.error.kind).toBe('failed');
});

it('fails only the first channel tried with #sim:fail-first', async () => {
  const low = adapters.get('sim-video-b-lowcost')!;
  const official = adapters.get('sim-video-b-official')!;
  const r = req(video('#sim:fail-first', 'video-b-2.5'));
  const s1 = await untilDone(low, (await low.submit(r)).upstreamId);
  const s2 = await untilDone(official, (await official.submit({ ...r, attemptId: `${r.attemptId}-2` })).upstreamId);
  expect(s1.state).toBe('failed');
  expect(s2.state).toBe('succeeded');
});

it('answers 503 and 429 (with Retry-After) for the first calls of flaky tasks', async () => {
  const a = adapters.get('sim-video-a')!;
  const r = req(video('#sim:rate-limit=1 #sim:flaky=1'));
  const e1 = await a.submit(r).catch((e) => e);
  const e2 = await a.submit(r).catch((e) => e);
  expect(e1).toBeInstanceOf(UpstreamError);
  expect(e1).toMatchObject({ kind: 'transient', httpStatus: 429, retryAfterMs: 1000 });
  expect(e2).toMatchObject({ kind: 'transient', httpStatus: 503 });
  await expect(a.submit(r)).resolves.toHaveProperty('upstreamId');
});

it('reports success without a file, and a result that is not a file', async () => {
  const a = adapters.get('sim-image-main')!;
  const none = await untilDone(a, (await a.submit(req(image('#sim:no-file')))).upstreamId);
  expect(none).toEqual({ state: 'succeeded', outputs: [] });
  const bad = await untilDone(a, (await a.submit(req(image('#sim:bad-file')))).upstreamId);
  if (bad.state !== 'succeeded') throw new Error('expected success');
  await expect(fetchResult(bad.outputs[0], 'image')).rejects.toMatchObject({ kind: 'unusable' });
});

it('keeps a hanging render running and knows unknown renders as lost', async () => {
  const a = adapters.get('sim-video-c')!;
  const { upstreamId } = await a.submit(req(video('#sim:hang', 'video-c-3.1')));
  // Long enough to tell: a render started after it, with the same render time, has finished.
  const { upstreamId: ordinary } = await a.submit(req(video('an ordinary render', 'video-c-3.1')));
  expect((await untilDone(a, ordinary)).state).toBe('succeeded');
  expect((await a.poll(upstreamId)).state).toBe('running');
  await expect(a.poll('r_unknown')).rejects.toMatchObject({ kind: 'lost', httpStatus: 404 });
});

it('refuses a wrong key, which the adapter classifies as a failure of that channel', async () => {
  const [wrong] = createAdapters({ channels: [{ ...adapters.get('sim-video-a')!.channel, apiKey: 'nope' }] }).values();
  await expect(wrong.submit(req(video('x')))).rejects.toMatchObject({ kind: 'failed', httpStatus: 401 });
  wrong.close();
});

it('GET /stats/renders/<id> says when a render was created and when its time is up (benchmark time-to-result)', async () => {
  const a = adapters.get('sim-image-main')!;
  const before = Date.now();
  const { upstreamId } = await a.submit(req(image('a timed render #sim:delay=700', 'image-a-5.0')));
  const t = (await (await fetch(`${base}/stats/renders/${upstreamId}`)).json()) as { createdAt: number };
  expect(t).toEqual({ id: upstreamId, createdAt: expect.any(Number), renderMs: 700, finishesAt: t.createdAt + 700, callbackAt: null, callbackStatus: null }); // no callback_url: nothing sent
  expect(t.createdAt).toBeGreaterThanOrEqual(before);
  expect((await fetch(`${base}/stats/renders/r_unknown`)).status).toBe(404);
});
