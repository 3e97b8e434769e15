// The render's cost to us for the two protocols whose upstreams report usage but no price: a channel's
// `prices` turn fal's run time / outputs and Gemini's token counts / Veo's seconds into the cost of
// the attempt, from the documented answers (src/*/__fixtures__), polled through the real adapters.
import type { ImageTaskSpec, VideoTaskSpec } from '@mediagen/catalog';
import { createFalAdapter } from '../src/fal/fal-adapter';
import type { FalChannel } from '../src/fal/fal-config';
import { createGeminiAdapter } from '../src/gemini/gemini-adapter';
import type { GeminiChannel } from '../src/gemini/gemini-config';
import { geminiImageStatus } from '../src/gemini/gemini-status';
import { costMicroUsd } from '../src/render-price';
import { FakeUpstream, startFakeUpstream } from './gemini/fake-upstream';

const falFixture = (name: string) => require(`../src/fal/__fixtures__/${name}.json`);
const geminiFixture = (name: string) => require(`../src/gemini/__fixtures__/${name}.json`);
const ID = '764cabcf-b745-4b3e-ae38-1200304cf45b';

let up: FakeUpstream;
beforeAll(async () => {
  up = await startFakeUpstream();
});
afterAll(() => up.close());
beforeEach(() => up.reset());

const base = { apiKey: 'k', tier: null, costOrder: 10, reportsViolations: true, maxInFlight: 10, enabled: true, maxResponseBytes: 64 << 20,
  timeouts: { submitMs: 5_000, pollMs: 5_000, downloadMs: 5_000 }, poll: { firstMs: 0, minMs: 100, maxMs: 1000 } };
const veo = (variant: string, duration: number | null = 8): VideoTaskSpec => ({
  type: 'video', model: 'video-c-3.1', prompt: 'waves', duration, ratio: '16:9', resolution: null, tier: null, variant,
  refMode: null, effort: null, seed: null, optimizePrompt: null, media: [], firstFrame: null, lastFrame: null,
});
const image = (model: string): ImageTaskSpec => ({ type: 'image', model, prompt: 'a red boat', ratio: '1:1', resolution: null, images: [] });

describe('costMicroUsd', () => {
  it('sums the terms whose rate is set and quantity known; none of them: no cost', () => {
    expect(costMicroUsd([[100_000, 8], [undefined, 3], [2.5, null]])).toBe(800_000);
    expect(costMicroUsd([[0.0301, 1290], [1, 1]])).toBe(40); // rounded to a whole micro-USD
    expect(costMicroUsd([[undefined, 8], [10, undefined]])).toBeUndefined();
    expect(costMicroUsd([[0, 8]])).toBe(0); // a free model costs 0, which is a known cost
    expect(costMicroUsd([[10, -1], [10, Number.NaN]])).toBeUndefined(); // a nonsense quantity is not a cost
  });
});

describe('fal: priced by the app path the render ran on', () => {
  const channel = (prices: FalChannel['prices']): FalChannel =>
    ({ ...base, id: 'fal', protocol: 'fal', baseUrl: up.base, webhookJwksUrl: `${up.base}/jwks`, prices,
      models: { 'video-c-3.1-fast': 'fal-ai/veo3.1/fast', 'video-c-3.1-pro': 'fal-ai/veo3.1', 'image-b-2.5': 'fal-ai/nano-banana' } }) as FalChannel;
  const poll = async (ch: FalChannel, upstreamId: string, result: unknown, render?: Parameters<ReturnType<typeof createFalAdapter>['poll']>[1]) => {
    up.on('GET', `/${upstreamId}/status`, { body: falFixture('fal-status-completed') });
    up.on('GET', `/${upstreamId}`, { status: 200, body: result });
    const a = createFalAdapter(ch);
    try {
      return await a.poll(upstreamId, render);
    } finally {
      a.close();
    }
  };

  it('a Veo Fast video at 100,000 micro-USD a second, 8 s: 800,000; Veo standard on the same app root is priced apart', async () => {
    const ch = channel({ 'fal-ai/veo3.1/fast': { microUsdPerOutputSecond: 100_000 }, 'fal-ai/veo3.1': { microUsdPerOutputSecond: 400_000 } });
    const fast = await poll(ch, `fal-ai/veo3.1/requests/${ID}`, falFixture('fal-result-video'), { spec: veo('video-c-3.1-fast'), outputSeconds: 8 });
    expect(fast).toMatchObject({ state: 'succeeded', usage: { units: 'inference_seconds', amount: 41.7, costMicroUsd: 800_000 } });
    const pro = await poll(ch, `fal-ai/veo3.1/requests/${ID}`, falFixture('fal-result-video'), { spec: veo('video-c-3.1-pro'), outputSeconds: 4 });
    expect(pro).toMatchObject({ usage: { costMicroUsd: 1_600_000 } });
  });

  it('an image app per image, and a GPU-second price from the reported inference time', async () => {
    const ch = channel({ 'fal-ai/nano-banana': { microUsdPerOutput: 39_000, microUsdPerInferenceSecond: 1_000 } });
    const s = await poll(ch, `fal-ai/nano-banana/requests/${ID}`, falFixture('fal-result-images'), { spec: image('image-b-2.5'), outputSeconds: null });
    // 39,000 per image + 41.7 s x 1,000.
    expect(s).toMatchObject({ state: 'succeeded', usage: { units: 'inference_seconds', amount: 41.7, costMicroUsd: 80_700 } });
  });

  it('without the render (an old caller) the only price under the id\'s app is used; two under it: usage only', async () => {
    const one = channel({ 'fal-ai/nano-banana': { microUsdPerOutput: 39_000 } });
    expect(await poll(one, `fal-ai/nano-banana/requests/${ID}`, falFixture('fal-result-images'))).toMatchObject({ usage: { costMicroUsd: 39_000 } });
    const two = channel({ 'fal-ai/veo3.1/fast': { microUsdPerOutput: 1 }, 'fal-ai/veo3.1': { microUsdPerOutput: 2 } });
    const s = await poll(two, `fal-ai/veo3.1/requests/${ID}`, falFixture('fal-result-video'));
    expect(s).toMatchObject({ usage: { units: 'inference_seconds', amount: 41.7 } });
    expect((s as { usage: object }).usage).not.toHaveProperty('costMicroUsd');
  });

  it('no price entry: usage only; success without a file: no cost', async () => {
    const s = await poll(channel({}), `fal-ai/veo3.1/requests/${ID}`, falFixture('fal-result-video'), { spec: veo('video-c-3.1-fast'), outputSeconds: 8 });
    expect(s).toEqual(expect.objectContaining({ usage: { units: 'inference_seconds', amount: 41.7 } }));
    const none = await poll(channel({ 'fal-ai/veo3.1/fast': { microUsdPerOutput: 5 } }), `fal-ai/veo3.1/requests/${ID}`, falFixture('fal-result-no-file'), { spec: veo('video-c-3.1-fast'), outputSeconds: 8 });
    expect(none).toMatchObject({ state: 'succeeded', outputs: [] });
    expect((none as { usage?: { costMicroUsd?: number } }).usage?.costMicroUsd).toBeUndefined();
  });
});

describe('gemini: image tokens from usageMetadata, Veo by the seconds rendered', () => {
  const channel = (prices: GeminiChannel['prices']): GeminiChannel =>
    ({ ...base, id: 'gem', protocol: 'gemini', veoReferenceType: 'asset', baseUrl: `${up.base}/v1beta`, prices,
      models: { 'video-c-3.1-pro': 'veo-3.1-generate-001', 'image-d-2.5-flash-image': 'gemini-2.5-flash-image' } }) as GeminiChannel;

  it('an image: output tokens at their rate plus prompt tokens at theirs (the fixture: 1,290 out, 12 in)', async () => {
    up.on('POST', '/v1beta/models/gemini-2.5-flash-image:generateContent', { body: geminiFixture('gemini-image-png') });
    const a = createGeminiAdapter(channel({ 'gemini-2.5-flash-image': { microUsdPerMillionOutputTokens: 30_000_000, microUsdPerMillionInputTokens: 300_000 } }));
    try {
      const res = await a.submit({ taskId: 't', attemptId: 'a', spec: image('image-d-2.5-flash-image'), outputSeconds: null, references: [] });
      // 1,290 x 30 + 12 x 0.3 = 38,703.6 micro-USD: the documented 0.039 USD per image.
      expect(res.status).toMatchObject({ state: 'succeeded', usage: { units: 'tokens', amount: 1302, costMicroUsd: 38_704 } });
    } finally {
      a.close();
    }
  });

  it('an image refused or empty costs nothing here; no entry: tokens only', () => {
    const price = { entry: { microUsdPerMillionOutputTokens: 30_000_000 } };
    expect(geminiImageStatus(geminiFixture('gemini-image-stop-without-parts'), true, price)).toMatchObject({ state: 'succeeded', outputs: [] });
    expect((geminiImageStatus(geminiFixture('gemini-image-stop-without-parts'), true, price) as { usage?: { costMicroUsd?: number } }).usage?.costMicroUsd).toBeUndefined();
    expect(geminiImageStatus(geminiFixture('gemini-image-png'), true)).toMatchObject({ usage: { units: 'tokens', amount: 1302 } });
    expect((geminiImageStatus(geminiFixture('gemini-image-png'), true) as { usage: object }).usage).not.toHaveProperty('costMicroUsd');
  });

  it('Veo: the seconds of video the poll\'s render asked for, or the operation name\'s model without it', async () => {
    const name = 'models/veo-3.1-generate-001/operations/8m2k1x9q4ht7';
    up.on('GET', `/v1beta/${name}`, { body: geminiFixture('veo-done-video') });
    const a = createGeminiAdapter(channel({ 'veo-3.1-generate-001': { microUsdPerOutputSecond: 400_000 } }));
    try {
      expect(await a.poll(name, { spec: veo('video-c-3.1-pro'), outputSeconds: 8 })).toMatchObject({ state: 'succeeded', usage: { units: 'outputs', amount: 1, costMicroUsd: 3_200_000 } });
      // Without the render the length is unknown: a per-second price gives no cost.
      const bare = await a.poll(name);
      expect(bare).toMatchObject({ state: 'succeeded' });
      expect((bare as { usage?: object }).usage).toBeUndefined();
    } finally {
      a.close();
    }
  });
});
