// The simulator's Replicate API driven by the real replicate adapter: predictions, Prefer: wait,
// each #sim: directive in Replicate's own signal, cancel, and Standard Webhooks
// callbacks verified with the secret fetched from the secret endpoint.
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';
import type { ImageTaskSpec, VideoTaskSpec } from '@mediagen/catalog';
import { ChannelAdapter, createAdapters, parseChannelConfig, RenderStatus } from '@mediagen/providers';
import { createSimServer } from '../src/sim-server';
import { startCallbackReceiver } from './callback-receiver';
import { eventually } from '../../../test/e2e/support/wait';

let adapters: Map<string, ChannelAdapter>;
let stop: () => Promise<void>;
let hooks: Awaited<ReturnType<typeof startCallbackReceiver>>;

const models = {
  'video-c-3.1-pro': 'google/veo-3.1', 'video-b-2.0': 'bytedance/seedance-2.0', 'image-b-2.5': 'google/nano-banana-pro',
  'image-c-2.1': 'black-forest-labs/flux-2-pro', 'image-b-2': 'black-forest-labs/flux-1.1-pro',
};
let simBase = '';
const config = (sim: string) =>
  parseChannelConfig({
    channels: [
      { id: 'rep-a', protocol: 'replicate', baseUrl: `${sim}/replicate/v1`, apiKey: 'r8_a', costOrder: 10, reportsViolations: true, models, preferWaitSeconds: 5 },
    ],
  });

beforeAll(async () => {
  hooks = await startCallbackReceiver();
  const sim = createSimServer({ channels: config('http://127.0.0.1:1'), renderMs: 100, latencyMs: 0 });
  await new Promise<void>((r) => sim.server.listen(0, '127.0.0.1', r));
  simBase = `http://127.0.0.1:${(sim.server.address() as AddressInfo).port}`;
  adapters = createAdapters(config(simBase));
  stop = () => new Promise((r) => { sim.server.closeAllConnections(); sim.server.close(() => r()); });
});
afterAll(async () => {
  for (const a of adapters.values()) a.close();
  await stop();
  await hooks.close();
});

let n = 0;
const seedance = (prompt: string): VideoTaskSpec => ({
  type: 'video', model: 'video-b-2.0', prompt: `${prompt} #${++n}`, duration: 6, ratio: '16:9', resolution: '720p', tier: 'third-party', variant: null,
  refMode: null, effort: null, seed: null, optimizePrompt: null, media: [], firstFrame: null, lastFrame: null,
});
const image = (prompt: string): ImageTaskSpec => ({ type: 'image', model: 'image-b-2.5', prompt: `${prompt} #${++n}`, ratio: '9:16', resolution: '2k', images: [] });
const req = (spec: VideoTaskSpec | ImageTaskSpec, callbackUrl?: string) => ({ taskId: `t${n}`, attemptId: `a${n}`, spec, outputSeconds: spec.type === 'video' ? 6 : null, references: [], callbackUrl });
const rep = () => adapters.get('rep-a')!;

/** Polls the render until it is no longer running (the simulator's render time, then the answer). */
const untilDone = (a: ChannelAdapter, id: string): Promise<RenderStatus> =>
  eventually(`render ${id} finished`, async () => {
    const s = await a.poll(id);
    return s.state !== 'running' && s;
  });
/** Success without a file is 'no outputs' (the worker settles it as no_result). */
const kindOf = (s: RenderStatus) => (s.state === 'failed' ? s.error.kind : s.state === 'succeeded' && !s.outputs.length ? 'no outputs' : s.state);

it('answers an image within Prefer: wait, at the requested ratio and size', async () => {
  const res = await rep().submit(req(image('a boat')));
  if (res.status?.state !== 'succeeded' || res.status.outputs[0].kind !== 'url') throw new Error(`expected a finished prediction, got ${JSON.stringify(res.status)}`);
  const png = PNG.sync.read(Buffer.from(await (await fetch(res.status.outputs[0].url)).arrayBuffer()));
  expect([png.width, png.height]).toEqual([1152, 2048]);
  expect(res.status.usage).toMatchObject({ units: 'predict_seconds' });
});

it('renders a video and calls back, signed with the secret from the secret endpoint', async () => {
  const { upstreamId } = await rep().submit(req(seedance('a dog'), `${hooks.url}/rep-a?task=t`));
  const cb = await hooks.next();
  // The succeeded prediction's file is passed on as a claim (apps/worker early-status.ts).
  expect(await rep().verifyCallback!(cb)).toEqual({ upstreamId, resultUrls: [expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/media\/r_/)] });
  expect(await rep().verifyCallback!({ ...cb, rawBody: Buffer.from(cb.rawBody.toString().replace('succeeded', 'failed')) })).toBeNull();
  expect(kindOf(await untilDone(rep(), upstreamId))).toBe('succeeded');
});

it('speaks each directive in Replicate signals', async () => {
  const kind = async (prompt: string) => kindOf(await untilDone(rep(), (await rep().submit(req(seedance(prompt)))).upstreamId));
  expect(await kind('#sim:violation')).toBe('violation');
  expect(await kind('#sim:fail')).toBe('failed');
  expect(await kind('#sim:no-file')).toBe('no outputs');
  const r = req(seedance('#sim:rate-limit=1 #sim:flaky=1'));
  await expect(rep().submit(r)).rejects.toMatchObject({ kind: 'transient', httpStatus: 429, retryAfterMs: 1000 });
  await expect(rep().submit(r)).rejects.toMatchObject({ kind: 'transient', httpStatus: 503 });
  await expect(rep().submit(r)).resolves.toHaveProperty('upstreamId');
});

it('cancels a running prediction; an unknown prediction is lost', async () => {
  const { upstreamId } = await rep().submit(req(seedance('#sim:hang')));
  await rep().cancel!(upstreamId);
  expect(await untilDone(rep(), upstreamId)).toMatchObject({ state: 'failed', error: { message: expect.stringMatching(/canceled/) } });
  await expect(rep().poll('r_nope')).rejects.toMatchObject({ kind: 'lost' });
});

it('input refusals, lost predictions and deleted outputs in Replicate signals', async () => {
  const refused = await rep().submit(req(seedance('#sim:violation-input')));
  expect(refused.status && kindOf(refused.status)).toBe('violation');
  const lost = req(seedance('#sim:lost'));
  await expect(rep().poll((await rep().submit(lost)).upstreamId)).rejects.toMatchObject({ kind: 'lost' });
  expect(kindOf(await untilDone(rep(), (await rep().submit(lost)).upstreamId))).toBe('succeeded');
  const expired = await untilDone(rep(), (await rep().submit(req(seedance('#sim:expired')))).upstreamId);
  if (expired.state !== 'succeeded' || expired.outputs[0].kind !== 'url') throw new Error('expected a URL');
  expect((await fetch(expired.outputs[0].url)).status).toBe(404);
});

describe('prediction list (orphan search)', () => {
  it('lists predictions newest first as {next, previous, results}, and the adapter finds the one a lost create made', async () => {
    const sent = new Date();
    const r = req(seedance('an orphan kite'));
    const { upstreamId } = await rep().submit(r);
    const page = (await (await fetch(`${rep().channel.baseUrl}/predictions`, { headers: { Authorization: 'Bearer r8_a' } })).json()) as { results: unknown[] };
    expect(page).toMatchObject({ next: null, previous: null });
    expect(page.results[0]).toMatchObject({ id: upstreamId, source: 'api', model: 'bytedance/seedance-2.0', input: expect.objectContaining({ prompt: r.spec.prompt }) });
    await expect(rep().findOrphan!({ ...r, submitSentAt: sent })).resolves.toBe(upstreamId);
    await expect(rep().findOrphan!({ ...r, spec: { ...r.spec, prompt: 'something else' }, submitSentAt: sent })).resolves.toBeNull();
  });
});

it('image-c-2.1 on FLUX.2 pro: the reference images go as input_images and the image comes back', async () => {
  const spec: ImageTaskSpec = { type: 'image', model: 'image-c-2.1', prompt: `a teapot #${++n}`, ratio: '3:4', resolution: null, images: [] };
  const refs = ['https://m/1.png', 'https://m/2.png'].map((url) => ({ role: 'reference_image' as const, url, contentType: 'image/png', data: async () => Buffer.alloc(0) }));
  const r = await adapters.get('rep-a')!.submit({ taskId: 't', attemptId: `a${n}`, spec, outputSeconds: null, references: refs });
  expect(r.status?.state).toBe('succeeded');
});

it.each([
  ['another model\'s name for its images (image_input on FLUX.2 pro)', 'black-forest-labs/flux-2-pro', { prompt: 'x', image_input: ['https://m/1.png'] }, /Additional property image_input is not allowed/],
  ['more images than FLUX 1.1 pro takes', 'black-forest-labs/flux-1.1-pro', { prompt: 'x', image_prompt: ['https://m/1.png', 'https://m/2.png'] }, /at most 1 items/],
])('refuses, as Replicate\'s validation does, %s (422)', async (_what, model, input, detail) => {
  const res = await fetch(`${simBase}/replicate/v1/models/${model}/predictions`, { method: 'POST', headers: { Authorization: 'Bearer r8_a', 'Content-Type': 'application/json' }, body: JSON.stringify({ input: { ...input, prompt: `x #${++n}` } }) });
  expect(res.status).toBe(422);
  expect(await res.json()).toMatchObject({ status: 422, title: 'Input validation failed', detail: expect.stringMatching(detail) });
});
