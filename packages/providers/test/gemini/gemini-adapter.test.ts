// The gemini adapter against recorded Gemini API answers (src/gemini/__fixtures__), served by a
// scripted upstream: what we send, and how every documented answer is classified.
import type { ImageTaskSpec, VideoTaskSpec } from '@mediagen/catalog';
import { createGeminiAdapter } from '../../src/gemini/gemini-adapter';
import type { GeminiChannel } from '../../src/gemini/gemini-config';
import { geminiImageStatus, veoStatus } from '../../src/gemini/gemini-status';
import { FakeUpstream, reference, startFakeUpstream } from './fake-upstream';

const fixture = (name: string) => require(`../../src/gemini/__fixtures__/${name}.json`);
const GOOGLE = 'https://generativelanguage.googleapis.com/v1beta';

let up: FakeUpstream;
beforeAll(async () => {
  up = await startFakeUpstream();
});
afterAll(() => up.close());
beforeEach(() => up.reset());

const channel = (extra: Partial<GeminiChannel> = {}): GeminiChannel =>
  ({
    id: 'gemini-test', protocol: 'gemini', veoReferenceType: 'asset', baseUrl: `${up.base}/v1beta`, apiKey: 'g-key', tier: null, costOrder: 10,
    models: {
      'video-c-3.1-fast': 'veo-3.1-fast-generate-001', 'video-c-3.1-pro': 'veo-3.1-generate-001',
      'video-c-3.1-components': 'veo-3.1-generate-001', 'image-d-2.5-flash-image': 'gemini-2.5-flash-image',
      'image-d-3-pro-image-preview': 'gemini-3-pro-image',
    },
    reportsViolations: true, maxInFlight: 10, enabled: true, maxResponseBytes: 64 << 20,
    timeouts: { submitMs: 5_000, pollMs: 5_000, downloadMs: 5_000 }, poll: { firstMs: 0, minMs: 100, maxMs: 1000 },
    ...extra,
  }) as GeminiChannel;

const veoSpec = (variant: string, prompt = 'a fox in snow'): VideoTaskSpec => ({
  type: 'video', model: 'video-c-3.1', prompt, duration: null, ratio: '9:16', resolution: null, tier: null, variant,
  refMode: null, effort: null, seed: null, optimizePrompt: null, media: [], firstFrame: null, lastFrame: null,
});
const imageSpec = (model = 'image-d-3-pro-image-preview', resolution: string | null = null): ImageTaskSpec => ({
  type: 'image', model, prompt: 'a red boat <Picture 1>', ratio: '16:9', resolution, images: [],
});
const req = (spec: VideoTaskSpec | ImageTaskSpec, references: ReturnType<typeof reference>[] = []) =>
  ({ taskId: 't1', attemptId: 'a1', spec, outputSeconds: null, references }) as never;

describe('Veo request mapping', () => {
  it('sends Fast/Pro images as first and last frame, base64 only, no seed, duration or resolution', async () => {
    up.on('POST', '/v1beta/models/veo-3.1-fast-generate-001:predictLongRunning', { body: fixture('veo-submit-operation') });
    const a = createGeminiAdapter(channel());
    const res = await a.submit(req(veoSpec('video-c-3.1-fast'), [reference('reference_image', 'u1'), reference('reference_image', 'u2')]));
    expect(res.upstreamId).toBe('models/veo-3.1-generate-001/operations/8m2k1x9q4ht7');
    const sent = up.requests[0];
    expect(sent.headers['x-goog-api-key']).toBe('g-key');
    expect(sent.body).toEqual({
      instances: [{
        prompt: 'a fox in snow',
        image: { bytesBase64Encoded: Buffer.from('u1').toString('base64'), mimeType: 'image/png' },
        lastFrame: { bytesBase64Encoded: Buffer.from('u2').toString('base64'), mimeType: 'image/png' },
      }],
      parameters: { aspectRatio: '9:16', sampleCount: 1 },
    });
    a.close();
  });

  it('sends Components images as asset reference images in <Picture N> order, spelled as the channel says', async () => {
    up.on('POST', '/v1beta/models/veo-3.1-generate-001:predictLongRunning', { body: fixture('veo-submit-operation') });
    const a = createGeminiAdapter(channel({ veoReferenceType: 'ASSET' }));
    await a.submit(req(veoSpec('video-c-3.1-components'), ['p1', 'p2', 'p3'].map((u) => reference('reference_image', u))));
    const inst = up.requests[0].body.instances[0];
    expect(inst.image).toBeUndefined();
    expect(inst.referenceImages.map((r: any) => [Buffer.from(r.image.bytesBase64Encoded, 'base64').toString(), r.referenceType])).toEqual([
      ['p1', 'ASSET'], ['p2', 'ASSET'], ['p3', 'ASSET'],
    ]);
    a.close();
  });
});

describe('Veo operation status', () => {
  const ctx = { reportsViolations: true, baseUrl: GOOGLE, apiKey: 'g-key' };
  it('is running until done (with or without the field)', () => {
    expect(veoStatus(fixture('veo-running'), ctx)).toEqual({ state: 'running', progress: 0 });
    expect(veoStatus(fixture('veo-running-without-done'), ctx)).toEqual({ state: 'running', progress: 0 });
  });
  it('succeeds with the video URL, the key in a header for Google origin only', () => {
    const s = veoStatus(fixture('veo-done-video'), ctx);
    expect(s).toEqual({
      state: 'succeeded',
      outputs: [{ kind: 'url', url: 'https://generativelanguage.googleapis.com/v1beta/files/3x7k2m9q:download?alt=media', contentType: 'video/mp4', headers: { 'x-goog-api-key': 'g-key' } }],
    });
    const foreign = veoStatus(fixture('veo-done-video-foreign-host'), ctx);
    expect(foreign.state === 'succeeded' && foreign.outputs[0]).toEqual({ kind: 'url', url: 'https://evil.example/files/x.mp4', contentType: 'video/mp4' });
  });
  it('reads the generatedVideos alias', () => {
    expect(veoStatus(fixture('veo-done-generated-videos-alias'), ctx).state).toBe('succeeded');
  });
  it('done with zero samples because RAI filtered them is a violation (a plain failure where the channel does not report them)', () => {
    const s = veoStatus(fixture('veo-done-rai-filtered'), ctx);
    expect(s.state === 'failed' && [s.error.kind, s.error.message]).toEqual(['violation', expect.stringContaining('64151117')]);
    const quiet = veoStatus(fixture('veo-done-rai-filtered'), { ...ctx, reportsViolations: false });
    expect(quiet.state === 'failed' && quiet.error.kind).toBe('failed');
  });
  it('done with zero samples and no filter is success without a file (the worker settles no_result)', () => {
    expect(veoStatus(fixture('veo-done-zero-samples'), ctx)).toEqual({ state: 'succeeded', outputs: [] });
  });
  it('an operation error quoting an RAI support code is a violation; an internal error a failed render', () => {
    const v = veoStatus(fixture('veo-done-error-support-code'), ctx);
    const f = veoStatus(fixture('veo-done-error-internal'), ctx);
    expect(v.state === 'failed' && v.error.kind).toBe('violation');
    expect(f.state === 'failed' && f.error.kind).toBe('failed');
  });
});

describe('Veo errors over HTTP', () => {
  it('429 RESOURCE_EXHAUSTED is transient after RetryInfo.retryDelay', async () => {
    up.on('POST', /predictLongRunning$/, { status: 429, body: fixture('google-429-retry-info') });
    const a = createGeminiAdapter(channel());
    await expect(a.submit(req(veoSpec('video-c-3.1-pro')))).rejects.toMatchObject({ kind: 'transient', retryAfterMs: 34_400, httpStatus: 429 });
    a.close();
  });
  it('503 overloaded is transient; 400 with a support code a violation; other 400s a failed render', async () => {
    const a = createGeminiAdapter(channel());
    up.on('POST', /predictLongRunning$/, { status: 503, body: fixture('google-503-overloaded'), headers: { 'Retry-After': '7' } });
    await expect(a.submit(req(veoSpec('video-c-3.1-pro')))).rejects.toMatchObject({ kind: 'transient', retryAfterMs: 7000 });
    up.on('POST', /predictLongRunning$/, { status: 400, body: fixture('google-400-support-code') });
    await expect(a.submit(req(veoSpec('video-c-3.1-pro')))).rejects.toMatchObject({ kind: 'violation', httpStatus: 400 });
    up.on('POST', /predictLongRunning$/, { status: 400, body: fixture('google-400-inline-data-refused') });
    await expect(a.submit(req(veoSpec('video-c-3.1-pro')))).rejects.toMatchObject({ kind: 'failed', httpStatus: 400 });
    a.close();
  });
  it('polls the operation by name; an operation the API no longer knows is lost; 403 is a failure', async () => {
    const a = createGeminiAdapter(channel());
    up.on('GET', '/v1beta/models/veo-3.1-generate-001/operations/8m2k1x9q4ht7', { body: fixture('veo-done-error-internal') });
    expect(await a.poll('models/veo-3.1-generate-001/operations/8m2k1x9q4ht7')).toMatchObject({ state: 'failed' });
    up.on('GET', /operations\/gone$/, { status: 404, body: fixture('google-404-operation') });
    await expect(a.poll('models/veo-3.1-generate-001/operations/gone')).rejects.toMatchObject({ kind: 'lost' });
    up.on('GET', /operations\/other$/, { status: 403, body: fixture('google-403-permission-denied') });
    await expect(a.poll('models/veo-3.1-generate-001/operations/other')).rejects.toMatchObject({ kind: 'failed', httpStatus: 403 });
    a.close();
  });
});

describe('Gemini images (synchronous)', () => {
  it('answers the submit with the inline PNG, the usage and no poll needed', async () => {
    up.on('POST', '/v1beta/models/gemini-3-pro-image:generateContent', { body: fixture('gemini-image-png') });
    const a = createGeminiAdapter(channel());
    // A reference known only as 'image/*' is sent with the type its bytes show.
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
    const res = await a.submit(req(imageSpec('image-d-3-pro-image-preview', '2k'), [reference('reference_image', 'https://m/pic1', 'image/*', jpeg)]));
    expect(res.status).toMatchObject({ state: 'succeeded', usage: { units: 'tokens', amount: 1302 } });
    const out = res.status?.state === 'succeeded' ? res.status.outputs[0] : null;
    expect(out).toMatchObject({ kind: 'inline', contentType: 'image/png' });
    expect(out?.kind === 'inline' && out.data.subarray(1, 4).toString()).toBe('PNG');
    expect(up.requests[0].body).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'a red boat <Picture 1>' }, { inlineData: { mimeType: 'image/jpeg', data: jpeg.toString('base64') } }] }],
      generationConfig: { responseModalities: ['TEXT', 'IMAGE'], imageConfig: { aspectRatio: '16:9', imageSize: '2K' } },
    });
    // The result lived only in that answer: polling the id after a crash asks for a fresh attempt.
    await expect(a.poll(res.upstreamId)).rejects.toMatchObject({ kind: 'lost' });
    a.close();
  });
  it('skips thought parts', () => {
    const s = geminiImageStatus(fixture('gemini-image-thinking-parts'), true);
    expect(s.state === 'succeeded' && s.outputs).toHaveLength(1);
  });
  it('a blocked prompt and a safety finish reason are violations', () => {
    for (const f of ['gemini-image-prompt-blocked', 'gemini-image-finish-image-safety']) {
      const s = geminiImageStatus(fixture(f), true);
      expect(s.state === 'failed' && s.error.kind).toBe('violation');
    }
  });
  it('only text with finishReason STOP, or NO_IMAGE, is a failed render, not success and not a violation', () => {
    const soft = geminiImageStatus(fixture('gemini-image-text-only-stop'), true);
    expect(soft.state === 'failed' && [soft.error.kind, soft.error.message]).toEqual(['failed', expect.stringContaining("I can't create images")]);
    const none = geminiImageStatus(fixture('gemini-image-no-image'), true);
    expect(none.state === 'failed' && none.error.kind).toBe('failed');
  });
  it('STOP with no parts at all is success without a file (the worker settles no_result)', () => {
    expect(geminiImageStatus(fixture('gemini-image-stop-without-parts'), true)).toMatchObject({ state: 'succeeded', outputs: [] });
  });
});

describe('config-load check', () => {
  it('serves video-c and image-d models, refuses video-a/video-b and sizes on 2.5 flash image', () => {
    const a = createGeminiAdapter(channel({ models: { 'video-c-3.1-fast': 'veo-3.1-fast-generate-001', 'video-a-h3': 'veo-3.1-generate-001', 'image-a-5.0': 'gemini-2.5-flash-image', 'image-d-2.5-flash-image': 'gemini-2.5-flash-image' } }));
    expect(a.unsupported!('video-c-3.1', 'video-c-3.1-fast')).toBeNull();
    expect(a.unsupported!('image-d-2.5-flash-image', null)).toBeNull();
    expect(a.unsupported!('video-a-h3', null)).toMatch(/video-a-h3.*Veo/);
    // Without a size choice the channel renders no sold resolution: it takes no image-a task.
    expect(a.unsupported!('image-a-5.0', null)).toBeNull();
    expect(a.coverage!('image-a-5.0', null)).toMatchObject({ resolutions: [] });
    a.close();
  });
});

describe('shut-down models and answers of unknown shape (2026-11-27)', () => {
  it.each([
    ['google-404-model-not-found', /generateContent$/, () => req(imageSpec())],
    ['google-404-model-no-longer-available', /predictLongRunning$/, () => req(veoSpec('video-c-3.1-pro'))],
  ])('a model Google shut down (%s) is an unknown model at submit (the worker skips this channel for it)', async (name, path, request) => {
    const a = createGeminiAdapter(channel());
    up.on('POST', path, { status: 404, body: fixture(name) });
    await expect(a.submit(request())).rejects.toMatchObject({ name: 'UpstreamError', kind: 'unknown_model', httpStatus: 404 });
    a.close();
  });

  it('an operation of a shape no client describes is a classified failure, never a success', async () => {
    const a = createGeminiAdapter(channel());
    up.on('GET', /operations\/8m2k1x9q4ht7$/, { body: fixture('veo-operation-unknown-shape') });
    await expect(a.poll('models/veo-3.1-generate-001/operations/8m2k1x9q4ht7')).rejects.toMatchObject({ name: 'UpstreamError', kind: 'transient' });
    a.close();
  });
});

it('refuses at startup a channel mapping a model Google shut down, naming the replacement', () => {
  const a = createGeminiAdapter(channel({ models: { 'image-d-3-pro-image-preview': 'gemini-3-pro-image-preview', 'video-c-3.1-pro': 'veo-3.1-generate-preview', 'image-d-2.5-flash-image': 'gemini-2.5-flash-image' } }));
  expect(a.unsupported!('image-d-3-pro-image-preview', null)).toBe('gemini-3-pro-image-preview was shut down by Google on 2026-06-25; its replacement is gemini-3-pro-image');
  expect(a.unsupported!('video-c-3.1', 'video-c-3.1-pro')).toMatch(/veo-3.1-generate-preview was shut down by Google on 2026-10-22; no replacement/);
  expect(a.unsupported!('image-d-2.5-flash-image', null)).toBeNull();
  a.close();
});
