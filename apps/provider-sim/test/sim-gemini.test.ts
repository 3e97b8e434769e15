// The simulator's Gemini API driven by the real gemini adapter: Veo operations and synchronous
// images, each #sim: directive in Gemini's own signal, files at the requested shape.
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';
import type { ImageTaskSpec, VideoTaskSpec } from '@mediagen/catalog';
import { ChannelAdapter, createAdapters, parseChannelConfig, RenderStatus } from '@mediagen/providers';
import { createSimServer } from '../src/sim-server';
import { eventually } from '../../../test/e2e/support/wait';

let base: string;
let adapters: Map<string, ChannelAdapter>;
let stop: () => Promise<void>;

const config = (sim: string) =>
  parseChannelConfig({
    channels: [
      { id: 'gem-a', protocol: 'gemini', baseUrl: `${sim}/gemini/v1beta`, apiKey: 'gem-key-a', costOrder: 10, reportsViolations: true,
        models: { 'video-c-3.1-fast': 'veo-3.1-fast-generate-001', 'video-c-3.1-components': 'veo-3.1-generate-001', 'image-d-3-pro-image-preview': 'gemini-3-pro-image' } },
      { id: 'gem-quiet', protocol: 'gemini', baseUrl: `${sim}/gemini/v1beta`, apiKey: 'gem-key-b', costOrder: 20, reportsViolations: false,
        models: { 'video-c-3.1-fast': 'veo-3.1-fast-generate-001', 'image-d-3-pro-image-preview': 'gemini-3-pro-image' } },
    ],
  });

beforeAll(async () => {
  const sim = createSimServer({ channels: config('http://127.0.0.1:1'), renderMs: 100, latencyMs: 0 });
  await new Promise<void>((r) => sim.server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(sim.server.address() as AddressInfo).port}`;
  adapters = createAdapters(config(base));
  stop = () => new Promise((r) => { sim.server.closeAllConnections(); sim.server.close(() => r()); });
});
afterAll(async () => {
  for (const a of adapters.values()) a.close();
  await stop();
});

let n = 0;
const veo = (prompt: string, variant = 'video-c-3.1-fast'): VideoTaskSpec => ({
  type: 'video', model: 'video-c-3.1', prompt: `${prompt} #${++n}`, duration: null, ratio: '9:16', resolution: null, tier: null, variant,
  refMode: null, effort: null, seed: null, optimizePrompt: null, media: [], firstFrame: null, lastFrame: null,
});
const image = (prompt: string): ImageTaskSpec => ({ type: 'image', model: 'image-d-3-pro-image-preview', prompt: `${prompt} #${++n}`, ratio: '16:9', resolution: null, images: [] });
const req = (spec: VideoTaskSpec | ImageTaskSpec) => ({ taskId: `t${n}`, attemptId: `a${n}`, spec, outputSeconds: null, references: [] });

/** Polls the render until it is no longer running (the simulator's render time, then the answer). */
const untilDone = (a: ChannelAdapter, id: string): Promise<RenderStatus> =>
  eventually(`render ${id} finished`, async () => {
    const s = await a.poll(id);
    return s.state !== 'running' && s;
  });
/** Success without a file is 'no outputs' (the worker settles it as no_result). */
const kindOf = (s: RenderStatus) => (s.state === 'failed' ? s.error.kind : s.state === 'succeeded' && !s.outputs.length ? 'no outputs' : s.state);

it('renders a Veo video, downloadable only with the key', async () => {
  const a = adapters.get('gem-a')!;
  const { upstreamId } = await a.submit(req(veo('a fox')));
  expect(upstreamId).toMatch(/^models\/veo-3.1-fast-generate-001\/operations\//);
  const s = await untilDone(a, upstreamId);
  if (s.state !== 'succeeded' || s.outputs[0].kind !== 'url') throw new Error(`expected a URL result, got ${JSON.stringify(s)}`);
  const out = s.outputs[0];
  expect(out.headers).toEqual({ 'x-goog-api-key': 'gem-key-a' });
  expect((await fetch(out.url)).status).not.toBe(200);
  const file = Buffer.from(await (await fetch(out.url, { headers: out.headers })).arrayBuffer());
  expect(file.subarray(4, 8).toString('latin1')).toBe('ftyp');
});

it('answers a Gemini image in the submit, inline, at the requested ratio', async () => {
  const res = await adapters.get('gem-a')!.submit(req(image('a boat')));
  const out = res.status?.state === 'succeeded' ? res.status.outputs[0] : null;
  if (out?.kind !== 'inline') throw new Error(`expected an inline result, got ${JSON.stringify(res.status)}`);
  const png = PNG.sync.read(out.data);
  expect([png.width, png.height]).toEqual([1024, 576]);
});

it('speaks each directive in Gemini signals', async () => {
  const a = adapters.get('gem-a')!;
  const quiet = adapters.get('gem-quiet')!;
  const veoKind = async (ad: ChannelAdapter, prompt: string) => kindOf(await untilDone(ad, (await ad.submit(req(veo(prompt)))).upstreamId));
  const imageKind = async (ad: ChannelAdapter, prompt: string) => kindOf((await ad.submit(req(image(prompt)))).status!);
  expect(await veoKind(a, '#sim:violation')).toBe('violation');
  expect(await veoKind(quiet, '#sim:violation')).toBe('failed');
  expect(await veoKind(a, '#sim:fail')).toBe('failed');
  expect(await veoKind(a, '#sim:no-file')).toBe('no outputs');
  expect(await imageKind(a, '#sim:violation')).toBe('violation');
  expect(await imageKind(a, '#sim:fail')).toBe('failed');
  expect(await imageKind(a, '#sim:no-file')).toBe('no outputs');
});

it('429 carries RetryInfo, 503 is overload; then the call goes through', async () => {
  const a = adapters.get('gem-a')!;
  const r = req(veo('#sim:rate-limit=1 #sim:flaky=1'));
  await expect(a.submit(r)).rejects.toMatchObject({ kind: 'transient', httpStatus: 429, retryAfterMs: 1000 });
  await expect(a.submit(r)).rejects.toMatchObject({ kind: 'transient', httpStatus: 503 });
  await expect(a.submit(r)).resolves.toHaveProperty('upstreamId');
});

it('fails only the first channel with #sim:fail-first; an unknown operation is lost', async () => {
  const spec = veo('#sim:fail-first');
  const first = await untilDone(adapters.get('gem-a')!, (await adapters.get('gem-a')!.submit(req(spec))).upstreamId);
  const second = await untilDone(adapters.get('gem-quiet')!, (await adapters.get('gem-quiet')!.submit(req(spec))).upstreamId);
  expect([kindOf(first), kindOf(second)]).toEqual(['failed', 'succeeded']);
  await expect(adapters.get('gem-a')!.poll('models/veo-3.1-fast-generate-001/operations/r_nope')).rejects.toMatchObject({ kind: 'lost' });
});

it('input refusals, lost operations and expired files in Gemini signals', async () => {
  const a = adapters.get('gem-a')!;
  await expect(a.submit(req(veo('#sim:violation-input')))).rejects.toMatchObject({ kind: 'violation', httpStatus: 400 });
  expect(kindOf((await a.submit(req(image('#sim:violation-input')))).status!)).toBe('violation');
  const lost = req(veo('#sim:lost'));
  const first = await a.submit(lost);
  await expect(a.poll(first.upstreamId)).rejects.toMatchObject({ kind: 'lost' });
  const again = await a.submit(lost);
  expect(kindOf(await untilDone(a, again.upstreamId))).toBe('succeeded');
  const expired = await untilDone(a, (await a.submit(req(veo('#sim:expired')))).upstreamId);
  if (expired.state !== 'succeeded' || expired.outputs[0].kind !== 'url') throw new Error('expected a URL');
  expect((await fetch(expired.outputs[0].url, { headers: expired.outputs[0].headers })).status).toBe(404);
});

it.each([
  ['gemini-3-pro-image-preview', 'generateContent', /is not found for API version v1beta, or is not supported for generateContent/],
  ['gemini-3.1-flash-image-preview', 'generateContent', /is not found for API version v1beta/],
  ['veo-3.1-generate-preview', 'predictLongRunning', /is no longer available/],
  ['veo-3.1-fast-generate-preview', 'predictLongRunning', /is no longer available/],
])('answers a model Google shut down (%s) with 404 NOT_FOUND, as the Gemini API does', async (model, method, message) => {
  const res = await fetch(`${base}/gemini/v1beta/models/${model}:${method}`, {
    method: 'POST', headers: { 'x-goog-api-key': 'gem-key-a', 'Content-Type': 'application/json' }, body: JSON.stringify({ contents: [] }),
  });
  expect(res.status).toBe(404);
  expect(((await res.json()) as { error: unknown }).error).toMatchObject({ code: 404, status: 'NOT_FOUND', message: expect.stringMatching(message) });
});

it('a channel still mapping a shut-down model fails its renders there (unknown_model: the next channel renders, this one is skipped for it)', async () => {
  const retired = createAdapters(parseChannelConfig({ channels: [{ id: 'gem-a', protocol: 'gemini', baseUrl: `${base}/gemini/v1beta`, apiKey: 'gem-key-a', costOrder: 1,
    models: { 'image-d-3-pro-image-preview': 'gemini-3-pro-image-preview' } }] })).get('gem-a')!;
  try {
    const err = await retired.submit(req(image('a kite'))).then(() => null, (e: unknown) => e);
    expect(retired.classifyError(err, 'submit')).toMatchObject({ kind: 'unknown_model', httpStatus: 404 });
  } finally {
    retired.close();
  }
});
