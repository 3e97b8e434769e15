// The replicate adapter against recorded Replicate answers (src/replicate/__fixtures__), served by
// a scripted upstream; webhook signatures made here with the standardwebhooks signer.
import type { ImageTaskSpec, VideoTaskSpec } from '@mediagen/catalog';
import { Webhook } from 'standardwebhooks';
import { createReplicateAdapter } from '../../src/replicate/replicate-adapter';
import type { ReplicateChannel } from '../../src/replicate/replicate-config';
import { predictionStatus } from '../../src/replicate/replicate-status';
import { FakeUpstream, reference, startFakeUpstream } from '../gemini/fake-upstream';

const fixture = (name: string) => require(`../../src/replicate/__fixtures__/${name}.json`);
const ID = 'gm3qorzdhgbfurvjtvhg6dckhu';
const SECRET = fixture('replicate-webhook-secret').key as string;

let up: FakeUpstream;
beforeAll(async () => {
  up = await startFakeUpstream();
});
afterAll(() => up.close());
beforeEach(() => up.reset());

const channel = (extra: Partial<ReplicateChannel> = {}): ReplicateChannel =>
  ({
    id: 'rep-test', protocol: 'replicate', baseUrl: `${up.base}/v1`, apiKey: 'r8_key', tier: 'third-party', costOrder: 10,
    models: { 'video-c-3.1-pro': 'google/veo-3.1', 'video-c-3.1-components': 'google/veo-3.1', 'video-b-2.0': 'bytedance/seedance-2.0', 'image-b-2.5': 'google/nano-banana-pro', 'image-a-5.0': 'bytedance/seedream-4:5f2d8b7c9a1e3f4d' },
    reportsViolations: true, maxInFlight: 10, enabled: true, maxResponseBytes: 64 << 20,
    timeouts: { submitMs: 5_000, pollMs: 5_000, downloadMs: 5_000 }, poll: { firstMs: 0, minMs: 100, maxMs: 1000 },
    ...extra,
  }) as ReplicateChannel;

const veo = (variant: string): VideoTaskSpec => ({
  type: 'video', model: 'video-c-3.1', prompt: 'waves', duration: null, ratio: '16:9', resolution: null, tier: null, variant,
  refMode: null, effort: null, seed: null, optimizePrompt: null, media: [], firstFrame: null, lastFrame: null,
});
const seedance = (): VideoTaskSpec => ({ ...veo(''), model: 'video-b-2.0', variant: null, duration: 6, resolution: '720p', tier: 'third-party', seed: 7 });
const image = (model = 'image-b-2.5'): ImageTaskSpec => ({ type: 'image', model, prompt: 'p', ratio: '3:2', resolution: '2k', images: [] });
const req = (spec: VideoTaskSpec | ImageTaskSpec, references: ReturnType<typeof reference>[] = [], callbackUrl?: string) =>
  ({ taskId: 't1', attemptId: 'a1', spec, outputSeconds: spec.type === 'video' ? spec.duration : null, references, callbackUrl }) as never;

describe('request mapping', () => {
  const submitted = async (spec: VideoTaskSpec | ImageTaskSpec, refs: ReturnType<typeof reference>[] = [], extra: Partial<ReplicateChannel> = {}, callbackUrl?: string) => {
    up.reset();
    up.on('POST', /predictions$/, { status: 201, body: fixture('replicate-prediction-starting') });
    const a = createReplicateAdapter(channel(extra));
    const res = await a.submit(req(spec, refs, callbackUrl));
    a.close();
    return { res, r: up.requests[0] };
  };
  it('official models on /models/{owner}/{name}/predictions with the webhook for completed events only', async () => {
    const { res, r } = await submitted(veo('video-c-3.1-pro'), [reference('reference_image', 'https://m/1'), reference('reference_image', 'https://m/2')], {}, 'https://gw/hooks/upstream/rep-test');
    expect(res).toEqual({ upstreamId: ID });
    expect(r.path).toBe('/v1/models/google/veo-3.1/predictions');
    expect(r.headers.authorization).toBe('Bearer r8_key');
    expect(r.headers.prefer).toBeUndefined();
    expect(r.body).toEqual({
      input: { prompt: 'waves', aspect_ratio: '16:9', image: 'https://m/1', last_frame: 'https://m/2' },
      webhook: 'https://gw/hooks/upstream/rep-test', webhook_events_filter: ['completed'],
    });
  });
  it('Components: reference_images; Seedance: duration, resolution, seed and references by kind', async () => {
    expect((await submitted(veo('video-c-3.1-components'), [reference('reference_image', 'https://m/a')])).r.body.input).toEqual({ prompt: 'waves', aspect_ratio: '16:9', reference_images: ['https://m/a'] });
    const s = await submitted(seedance(), [reference('reference_image', 'https://m/i'), reference('reference_audio', 'https://m/a', 'audio/mpeg')]);
    expect(s.r.path).toBe('/v1/models/bytedance/seedance-2.0/predictions');
    expect(s.r.body.input).toEqual({ prompt: 'waves', aspect_ratio: '16:9', duration: 6, resolution: '720p', seed: 7, reference_images: ['https://m/i'], reference_audios: ['https://m/a'] });
  });
  it('a pinned version goes to /predictions; images get Prefer: wait and Cancel-After when the channel sets them', async () => {
    const { r } = await submitted(image('image-a-5.0'), [reference('reference_image', 'https://m/x')], { preferWaitSeconds: 30, cancelAfterSeconds: 3600 });
    expect(r.path).toBe('/v1/predictions');
    expect(r.body).toEqual({ version: '5f2d8b7c9a1e3f4d', input: { prompt: 'p', aspect_ratio: '3:2', image_input: ['https://m/x'], size: '2K' } });
    expect([r.headers.prefer, r.headers['cancel-after']]).toEqual(['wait=30', '3600s']);
    const v = await submitted(seedance(), [], { preferWaitSeconds: 30 });
    expect(v.r.headers.prefer).toBeUndefined();
  });
  // Each Replicate image model names its reference images differently (replicate.com API pages, 2026-11-27).
  it.each([
    ['black-forest-labs/flux-2-pro', 'image-c-2.1', { input_images: ['https://m/1', 'https://m/2'], output_format: 'png' }],
    ['google/nano-banana-pro', 'image-b-2.5', { image_input: ['https://m/1', 'https://m/2'], resolution: '2K', output_format: 'png' }],
  ])('sends %s its own input names', async (model, ours, expected) => {
    const spec = { ...image(ours), resolution: ours === 'image-c-2.1' ? null : '2k' };
    const { r } = await submitted(spec, [reference('reference_image', 'https://m/1'), reference('reference_image', 'https://m/2')], { models: { [ours]: model } });
    expect(r.body.input).toEqual({ prompt: 'p', aspect_ratio: '3:2', ...expected });
  });

  it('sends FLUX 1.1 pro its single image_prompt, and never more images than a model takes', async () => {
    const { r } = await submitted({ ...image('image-c-2.1'), resolution: null }, [reference('reference_image', 'https://m/1')], { models: { 'image-c-2.1': 'black-forest-labs/flux-1.1-pro' } });
    expect(r.body.input).toEqual({ prompt: 'p', aspect_ratio: '3:2', image_prompt: 'https://m/1', output_format: 'png' });
    up.reset();
    const a = createReplicateAdapter(channel({ models: { 'image-c-2.1': 'black-forest-labs/flux-1.1-pro' } }));
    await expect(a.submit(req({ ...image('image-c-2.1'), resolution: null }, [reference('reference_image', 'https://m/1'), reference('reference_image', 'https://m/2')])))
      .rejects.toMatchObject({ kind: 'failed', message: expect.stringMatching(/takes at most 1 reference images/) });
    expect(up.requests).toHaveLength(0);
    a.close();
  });

  it('refuses at config load an image model whose inputs it does not know; one that takes fewer images or sizes than sold serves the rest', () => {
    const a = createReplicateAdapter(channel({ models: { 'image-c-2.1': 'black-forest-labs/flux-1.1-pro', 'image-b-2': 'stability-ai/sdxl', 'image-b-2.5': 'black-forest-labs/flux-2-pro' } }));
    expect(a.unsupported!('image-c-2.1', null)).toBeNull();
    expect(a.coverage!('image-c-2.1', null)).toEqual({ maxRefs: { image: 1 } });
    expect(a.unsupported!('image-b-2', null)).toMatch(/stability-ai\/sdxl: this adapter knows the image inputs of .*black-forest-labs\/flux-2-pro/);
    expect(a.unsupported!('image-b-2.5', null)).toBeNull();
    expect(a.coverage!('image-b-2.5', null)).toEqual({ resolutions: [] });
    a.close();
    const ok = createReplicateAdapter(channel({ models: { 'image-c-2.1': 'black-forest-labs/flux-2-pro', 'image-b-2.5': 'google/nano-banana-pro' } }));
    expect(ok.unsupported!('image-c-2.1', null)).toBeNull();
    expect(ok.unsupported!('image-b-2.5', null)).toBeNull();
    ok.close();
  });

  it('a prediction finished within Prefer: wait answers in the submit', async () => {
    up.on('POST', /predictions$/, { status: 201, body: fixture('replicate-prediction-succeeded-images') });
    const a = createReplicateAdapter(channel({ preferWaitSeconds: 20 }));
    expect(await a.submit(req(image()))).toEqual({
      upstreamId: ID,
      status: { state: 'succeeded', outputs: [{ kind: 'url', url: 'https://replicate.delivery/xezq/img1.png' }], usage: { units: 'predict_seconds', amount: 6.2 } },
    });
    a.close();
  });
  it('refuses at config load what it cannot map', () => {
    const a = createReplicateAdapter(channel({ models: { 'video-a-h3': 'minimax/hailuo-02', 'video-b-2.0': 'not a model' } }));
    expect(a.unsupported!('video-a-h3', null)).toMatch(/video-a-h3 on Replicate model minimax\/hailuo-02/);
    expect(a.unsupported!('video-b-2.0', null)).toMatch(/not a Replicate model/);
    a.close();
    // google/veo-3.1 takes reference images only at 16:9; the catalog sells Components at 9:16 too.
    const v = createReplicateAdapter(channel());
    expect(v.unsupported!('video-c-3.1', 'video-c-3.1-pro')).toBeNull();
    // Components takes reference images only at 16:9 there: it serves that part.
    expect(v.unsupported!('video-c-3.1', 'video-c-3.1-components')).toBeNull();
    expect(v.coverage!('video-c-3.1', 'video-c-3.1-components')).toEqual({ ratios: ['16:9'] });
    expect(v.unsupported!('video-b-2.0', null)).toBeNull();
    v.close();
  });
});

describe('prediction status', () => {
  const kind = (name: string, reports = true) => {
    const s = predictionStatus(fixture(name), reports);
    return s.state === 'failed' ? s.error.kind : s.state === 'succeeded' && !s.outputs.length ? 'no outputs' : s.state;
  };
  it('maps every documented status', () => {
    expect(kind('replicate-prediction-starting')).toBe('running');
    expect(kind('replicate-prediction-processing')).toBe('running');
    expect(kind('replicate-prediction-succeeded-video')).toBe('succeeded');
    expect(kind('replicate-prediction-succeeded-no-output')).toBe('no outputs');
    expect(kind('replicate-prediction-failed-e005')).toBe('violation');
    expect(kind('replicate-prediction-failed-flagged-without-code')).toBe('violation');
    expect(kind('replicate-prediction-failed-e005', false)).toBe('failed');
    expect(kind('replicate-prediction-failed-oom')).toBe('failed');
    expect(kind('replicate-prediction-canceled')).toBe('failed');
    expect(kind('replicate-prediction-aborted')).toBe('failed');
  });
  it('reports predict_time as the upstream usage', () => {
    expect(predictionStatus(fixture('replicate-prediction-succeeded-video'), true)).toMatchObject({ usage: { units: 'predict_seconds', amount: 87.9 } });
  });
});

describe('HTTP errors', () => {
  const err = async (status: number, name: string, action: 'submit' | 'poll', headers?: Record<string, string>) => {
    up.reset();
    up.on(action === 'submit' ? 'POST' : 'GET', /.*/, { status, body: fixture(name), headers });
    const a = createReplicateAdapter(channel());
    const e = await (action === 'submit' ? a.submit(req(seedance())) : a.poll(ID)).catch((x) => x);
    a.close();
    return e;
  };
  it('429 is transient after the seconds the message names, in both wordings; Retry-After wins', async () => {
    expect(await err(429, 'replicate-429-resets-in', 'submit')).toMatchObject({ kind: 'transient', retryAfterMs: 30_000 });
    expect(await err(429, 'replicate-429-expected-available', 'submit')).toMatchObject({ kind: 'transient', retryAfterMs: 3_000 });
    expect(await err(429, 'replicate-429-resets-in', 'submit', { 'Retry-After': '5' })).toMatchObject({ retryAfterMs: 5_000 });
  });
  it('an unknown prediction is lost; invalid input a failed render', async () => {
    expect(await err(404, 'replicate-404-not-found', 'poll')).toMatchObject({ kind: 'lost' });
    expect(await err(422, 'replicate-422-invalid-input', 'submit')).toMatchObject({ kind: 'failed', httpStatus: 422 });
  });
});

describe('cancel', () => {
  it('a prediction that already finished was not stopped: the cancel answer is a refusal (providers.md 7)', async () => {
    const a = createReplicateAdapter(channel());
    up.on('POST', `/v1/predictions/${ID}/cancel`, { body: fixture('replicate-prediction-succeeded-video') });
    await expect(a.cancel!(ID)).rejects.toMatchObject({ kind: 'failed', message: expect.stringMatching(/already succeeded/) });
    up.on('POST', `/v1/predictions/${ID}/cancel`, { status: 404, body: fixture('replicate-404-not-found') });
    await expect(a.cancel!(ID)).resolves.toBeUndefined();
    a.close();
  });

  it('POSTs the cancel endpoint', async () => {
    up.on('POST', `/v1/predictions/${ID}/cancel`, { body: fixture('replicate-prediction-canceled') });
    const a = createReplicateAdapter(channel());
    await a.cancel!(ID);
    expect(up.requests.map((r) => r.path)).toEqual([`/v1/predictions/${ID}/cancel`]);
    a.close();
  });
});

describe('webhook signatures (Standard Webhooks)', () => {
  const body = Buffer.from(JSON.stringify(fixture('replicate-prediction-succeeded-video')));
  const signed = (secret: string, raw = body, at = new Date()) => ({
    'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(secret).sign('msg_1', at, raw),
  });
  const claim = { upstreamId: ID, resultUrls: ['https://replicate.delivery/xezq/abc123/tmpvideo.mp4'] };
  it('verifies with the configured secret and names the prediction, with a succeeded one\'s files as a claim', async () => {
    const a = createReplicateAdapter(channel({ webhookSecret: SECRET }));
    expect(await a.verifyCallback!({ headers: signed(SECRET), rawBody: body, query: {} })).toEqual(claim);
    // A prediction still running claims no file.
    const running = Buffer.from(JSON.stringify({ ...fixture('replicate-prediction-succeeded-video'), status: 'processing' }));
    expect(await a.verifyCallback!({ headers: signed(SECRET, running), rawBody: running, query: {} })).toEqual({ upstreamId: ID });
    expect(up.requests).toHaveLength(0);
    a.close();
  });
  it('fetches the secret once from the secret endpoint when none is configured', async () => {
    up.on('GET', '/v1/webhooks/default/secret', { body: fixture('replicate-webhook-secret') });
    const a = createReplicateAdapter(channel());
    expect(await a.verifyCallback!({ headers: signed(SECRET), rawBody: body, query: {} })).toEqual(claim);
    expect(await a.verifyCallback!({ headers: signed(SECRET), rawBody: body, query: {} })).toEqual(claim);
    expect(up.requests.map((r) => [r.path, r.headers.authorization])).toEqual([['/v1/webhooks/default/secret', 'Bearer r8_key']]);
    a.close();
  });
  it('refuses another secret, a changed body and an old timestamp', async () => {
    const a = createReplicateAdapter(channel({ webhookSecret: SECRET }));
    const other = 'whsec_' + Buffer.from('another secret of 24 bytes').toString('base64');
    expect(await a.verifyCallback!({ headers: signed(other), rawBody: body, query: {} })).toBeNull();
    expect(await a.verifyCallback!({ headers: signed(SECRET), rawBody: Buffer.from(body.toString().replace('succeeded', 'failed')), query: {} })).toBeNull();
    expect(await a.verifyCallback!({ headers: signed(SECRET, body, new Date(Date.now() - 3_600_000)), rawBody: body, query: {} })).toBeNull();
    a.close();
  });
});

describe('orphan search (a create whose answer was lost)', () => {
  const sentAt = new Date('2026-11-23T04:42:09Z');
  const lost = (callbackUrl?: string) => ({ ...(req(veo('video-c-3.1-fast'), [], callbackUrl) as object), submitSentAt: sentAt }) as never;
  const search = async (r: never, extra: Partial<ReplicateChannel> = {}) => {
    const a = createReplicateAdapter(channel({ models: { 'video-c-3.1': 'google/veo-3.1' }, ...extra }));
    try {
      return await a.findOrphan!(r);
    } finally {
      a.close();
    }
  };

  it('finds the prediction in the documented list by model and input, skipping web predictions and those made before the first send', async () => {
    up.on('GET', '/v1/predictions', { body: fixture('replicate-predictions-list') });
    await expect(search(lost())).resolves.toBe('x7c2qk0mhdrj40ct4zh9s3v2a8');
    expect(up.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/predictions']);
    expect(up.requests[0].headers.authorization).toBe('Bearer r8_key');
    expect(createReplicateAdapter(channel()).capabilities.findOrphan).toBe(true);
    expect(createReplicateAdapter(channel({ orphanSearch: false })).capabilities.findOrphan).toBe(false);
  });

  it('matches on our webhook URL when the list carries it, even beside a twin with the same input', async () => {
    up.on('GET', '/v1/predictions', { body: fixture('replicate-predictions-list-with-webhook') });
    await expect(search(lost('https://gw.example/hooks/upstream/rep-test?task=t1&token=mine'))).resolves.toBe('x7c2qk0mhdrj40ct4zh9s3v2a8');
    await expect(search(lost('https://gw.example/hooks/upstream/rep-test?task=t3&token=none'))).resolves.toBeNull();
    // `next` points at another origin than the channel's base: never followed with our key.
    expect(up.requests.every((r) => r.path === '/v1/predictions' && !r.query.get('cursor'))).toBe(true);
  });

  it('adopts nothing when two predictions match by input alone, or when the input differs', async () => {
    const listed = fixture('replicate-predictions-list');
    up.on('GET', '/v1/predictions', { body: { ...listed, results: [listed.results[0], { ...listed.results[0], id: 'twin' }] } });
    await expect(search(lost())).resolves.toBeNull();
    up.reset();
    up.on('GET', '/v1/predictions', { body: listed });
    await expect(search({ ...(lost() as object), spec: { ...veo('video-c-3.1-fast'), prompt: 'dunes' } } as never)).resolves.toBeNull();
  });

  it('follows `next` under its own base while the page is inside the window', async () => {
    const listed = fixture('replicate-predictions-list');
    const newer = { ...listed.results[0], id: 'newer', input: { prompt: 'other' }, created_at: '2026-11-23T04:50:00Z' };
    up.on('GET', '/v1/predictions', (r) =>
      r.query.get('cursor') === 'p2' ? { body: { next: null, previous: null, results: listed.results } } : { body: { next: `${up.base}/v1/predictions?cursor=p2`, previous: null, results: [newer] } });
    await expect(search(lost())).resolves.toBe('x7c2qk0mhdrj40ct4zh9s3v2a8');
    expect(up.requests).toHaveLength(2);
  });

  it('fails (not transient) where the upstream has no list, so the worker creates without a search; transient on a 5xx', async () => {
    up.on('GET', '/v1/predictions', { status: 404, body: fixture('replicate-404-not-found') });
    await expect(search(lost())).rejects.toMatchObject({ kind: 'failed' });
    up.on('GET', '/v1/predictions', { status: 503, body: { detail: 'Service Unavailable.' } });
    await expect(search(lost())).rejects.toMatchObject({ kind: 'transient' });
  });
});

describe('upstream cost', () => {
  it('prices a prediction from the channel\'s prices: run time, or per output', async () => {
    up.on('GET', `/v1/predictions/${ID}`, { body: fixture('replicate-prediction-succeeded-video') });
    const price = async (prices: ReplicateChannel['prices']) => {
      const a = createReplicateAdapter(channel({ prices }));
      const s = await a.poll(ID);
      a.close();
      return s.state === 'succeeded' ? s.usage : undefined;
    };
    // 87.9 s of run time.
    await expect(price({ 'google/veo-3.1': { microUsdPerPredictSecond: 1_400 } })).resolves.toEqual({ units: 'predict_seconds', amount: 87.9, costMicroUsd: 123_060 });
    await expect(price({ 'google/veo-3.1': { microUsdPerOutput: 3_200_000 } })).resolves.toEqual({ units: 'predict_seconds', amount: 87.9, costMicroUsd: 3_200_000 });
    await expect(price({})).resolves.toEqual({ units: 'predict_seconds', amount: 87.9 });
  });
});

describe('answers of unknown shape and unknown models (2026-11-27)', () => {
  it.each([
    ['a status replicate-javascript does not list', { ...fixture('replicate-prediction-processing'), status: 'warming' }],
    ['a prediction that is not an object', 'succeeded'],
  ])('%s is a classified failure, never a success', async (_what, body) => {
    up.on('GET', `/v1/predictions/${ID}`, { body });
    const a = createReplicateAdapter(channel());
    await expect(a.poll(ID)).rejects.toMatchObject({ name: 'UpstreamError', kind: 'transient' });
    a.close();
  });

  it('a model Replicate does not know (404 on create) is an unknown model (the worker skips this channel for it)', async () => {
    up.on('POST', /predictions$/, { status: 404, body: fixture('replicate-404-not-found') });
    const a = createReplicateAdapter(channel());
    await expect(a.submit(req(seedance()))).rejects.toMatchObject({ kind: 'unknown_model', httpStatus: 404 });
    a.close();
  });

  it('an input the model refuses (422) fails this channel', async () => {
    up.on('POST', /predictions$/, { status: 422, body: fixture('replicate-422-additional-property') });
    const a = createReplicateAdapter(channel());
    await expect(a.submit(req(image()))).rejects.toMatchObject({ kind: 'failed', httpStatus: 422 });
    a.close();
  });
});

it('never sends hosted Seedance reference audio without an image or video (its schema refuses it)', async () => {
  const a = createReplicateAdapter(channel());
  await expect(a.submit(req(seedance(), [reference('reference_audio', 'https://m/a', 'audio/mpeg')]))).rejects.toMatchObject({ kind: 'failed', message: expect.stringMatching(/not sent: Seedance refuses reference audio/) });
  expect(up.requests).toHaveLength(0);
  a.close();
});
