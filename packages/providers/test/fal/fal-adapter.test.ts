// The fal adapter against recorded fal queue answers (src/fal/__fixtures__), served by a scripted
// upstream; webhook signatures made here with a fresh ED25519 key pair whose JWKS the upstream serves.
import { createHash, generateKeyPairSync, KeyObject, sign } from 'node:crypto';
import type { ImageTaskSpec, VideoTaskSpec } from '@mediagen/catalog';
import { createFalAdapter } from '../../src/fal/fal-adapter';
import type { FalChannel } from '../../src/fal/fal-config';
import { falResultStatus } from '../../src/fal/fal-status';
import { FalKeySet, verifyFalWebhook } from '../../src/fal/fal-webhook';
import { FakeUpstream, reference, startFakeUpstream } from '../gemini/fake-upstream';

const fixture = (name: string) => require(`../../src/fal/__fixtures__/${name}.json`);
const ID = '764cabcf-b745-4b3e-ae38-1200304cf45b';

let up: FakeUpstream;
beforeAll(async () => {
  up = await startFakeUpstream();
});
afterAll(() => up.close());
beforeEach(() => up.reset());

const channel = (extra: Partial<FalChannel> = {}): FalChannel =>
  ({
    id: 'fal-test', protocol: 'fal', baseUrl: up.base, apiKey: 'fal-key', tier: 'third-party', costOrder: 10,
    models: { 'video-c-3.1-fast': 'fal-ai/veo3.1/fast', 'video-c-3.1-components': 'fal-ai/veo3.1', 'video-b-2.0': 'bytedance/seedance-2.0', 'image-b-2.5': 'fal-ai/nano-banana' },
    reportsViolations: true, maxInFlight: 10, enabled: true, maxResponseBytes: 64 << 20, webhookJwksUrl: `${up.base}/.well-known/jwks.json`,
    timeouts: { submitMs: 5_000, pollMs: 5_000, downloadMs: 5_000 }, poll: { firstMs: 0, minMs: 100, maxMs: 1000 },
    ...extra,
  }) as FalChannel;

const veo = (variant: string): VideoTaskSpec => ({
  type: 'video', model: 'video-c-3.1', prompt: 'waves', duration: null, ratio: '16:9', resolution: null, tier: null, variant,
  refMode: null, effort: null, seed: null, optimizePrompt: null, media: [], firstFrame: null, lastFrame: null,
});
const seedance = (): VideoTaskSpec => ({ ...veo(''), model: 'video-b-2.0', variant: null, duration: 6, resolution: '720p', tier: 'third-party', seed: 42 });
const req = (spec: VideoTaskSpec | ImageTaskSpec, references: ReturnType<typeof reference>[] = [], callbackUrl?: string) =>
  ({ taskId: 't1', attemptId: 'a1', spec, outputSeconds: spec.type === 'video' ? spec.duration : null, references, callbackUrl }) as never;

describe('request mapping: the references pick the sub-path and the input names', () => {
  const submitted = async (spec: VideoTaskSpec | ImageTaskSpec, refs: ReturnType<typeof reference>[] = [], callbackUrl?: string) => {
    up.reset();
    up.on('POST', /.*/, { body: fixture('fal-submit-queued') });
    const a = createFalAdapter(channel());
    const res = await a.submit(req(spec, refs, callbackUrl));
    a.close();
    const r = up.requests[0];
    return { res, path: r.path, body: r.body, query: r.query, auth: r.headers.authorization };
  };

  it('Veo Fast with two pictures: first-last-frame-to-video, the key as `Key`, the webhook with our app', async () => {
    const s = await submitted(veo('video-c-3.1-fast'), [reference('reference_image', 'https://m/1.png'), reference('reference_image', 'https://m/2.png')], 'https://gw/hooks/upstream/fal-test');
    expect(s.path).toBe('/fal-ai/veo3.1/fast/first-last-frame-to-video');
    expect(s.auth).toBe('Key fal-key');
    expect(s.body).toEqual({ prompt: 'waves', aspect_ratio: '16:9', first_frame_url: 'https://m/1.png', last_frame_url: 'https://m/2.png' });
    expect(s.query.get('fal_webhook')).toBe('https://gw/hooks/upstream/fal-test?fal_app=fal-ai%2Fveo3.1');
    // Status and result live under owner/app, without the variant and sub-path.
    expect(s.res.upstreamId).toBe(`fal-ai/veo3.1/requests/${ID}`);
  });
  it('Veo Fast with one picture: image-to-video; Components: reference-to-video with image_urls', async () => {
    expect((await submitted(veo('video-c-3.1-fast'), [reference('reference_image', 'https://m/1.png')])).path).toBe('/fal-ai/veo3.1/fast/image-to-video');
    const c = await submitted(veo('video-c-3.1-components'), ['a', 'b', 'c'].map((u) => reference('reference_image', `https://m/${u}`)));
    expect([c.path, c.body.image_urls]).toEqual(['/fal-ai/veo3.1/reference-to-video', ['https://m/a', 'https://m/b', 'https://m/c']]);
  });
  it('Seedance: text-to-video with duration, resolution and seed; references to reference-to-video by kind', async () => {
    const t = await submitted(seedance());
    expect([t.path, t.body]).toEqual(['/bytedance/seedance-2.0/text-to-video', { prompt: 'waves', aspect_ratio: '16:9', duration: '6', resolution: '720p', seed: 42 }]);
    const r = await submitted(seedance(), [reference('reference_image', 'https://m/i'), reference('reference_video', 'https://m/v', 'video/mp4'), reference('reference_audio', 'https://m/a', 'audio/mpeg')]);
    expect(r.path).toBe('/bytedance/seedance-2.0/reference-to-video');
    expect(r.body).toMatchObject({ image_urls: ['https://m/i'], video_urls: ['https://m/v'], audio_urls: ['https://m/a'] });
  });
  it('image apps: references go to /edit as image_urls in <Picture N> order', async () => {
    const spec: ImageTaskSpec = { type: 'image', model: 'image-b-2.5', prompt: 'p', ratio: '1:1', resolution: '2k', images: [] };
    const s = await submitted(spec, [reference('reference_image', 'https://m/x'), reference('reference_image', 'https://m/y')]);
    expect([s.path, s.body]).toEqual(['/fal-ai/nano-banana/edit', { prompt: 'p', aspect_ratio: '1:1', num_images: 1, output_format: 'png', resolution: '2K', image_urls: ['https://m/x', 'https://m/y'] }]);
  });
  it('refuses at config load what it cannot map', () => {
    const a = createFalAdapter(channel({ models: { 'video-a-h3': 'minimax/h3-max', 'video-c-3.1-pro': 'fal-ai/veo3.1' } }));
    // fal hosts MiniMax H3 Max (480P/768P, 5-15 s, no effort tiers): less than video-a-h3 sells.
    expect(a.unsupported!('video-a-h3', null)).toBe(
      "fal's minimax/h3-max has no request mapping in this adapter (its inputs are unverified): map video-a-h3 to a MiniMax v2 channel (protocol minimax)");
    expect(a.unsupported!('video-c-3.1', 'video-c-3.1-pro')).toBeNull();
    a.close();
    // Seedance 2.0 renders at most 15 s with 9/3/3 references: it serves video-b-2.0, not video-b-2.5.
    const s = createFalAdapter(channel({ models: { 'video-b-2.0': 'bytedance/seedance-2.0', 'video-b-2.5': 'bytedance/seedance-2.0/fast', 'video-b-2.0-mini': 'bytedance/seedance-2.5' } }));
    expect(s.unsupported!('video-b-2.0', null)).toBeNull();
    // Seedance 2.0 serves the part of video-b-2.5 it can render (up to 15 s, fewer references).
    expect(s.unsupported!('video-b-2.5', null)).toBeNull();
    expect(s.coverage!('video-b-2.5', null)).toEqual({ seconds: { min: 4, max: 15 }, maxRefs: { image: 9, video: 3, audio: 3 } });
    expect(s.unsupported!('video-b-2.0-mini', null)).toBeNull();
    s.close();
  });
});

describe('status: COMPLETED is not success until the result says so', () => {
  const path = `/fal-ai/veo3.1/requests/${ID}`;
  const poll = async (status: string, result?: { status: number; body: unknown; headers?: Record<string, string> }) => {
    up.on('GET', `${path}/status`, { body: fixture(status) });
    if (result) up.on('GET', path, result);
    const a = createFalAdapter(channel());
    try {
      return await a.poll(`fal-ai/veo3.1/requests/${ID}`);
    } finally {
      a.close();
    }
  };
  it('queued and in progress are running', async () => {
    expect(await poll('fal-status-in-queue')).toEqual({ state: 'running', progress: 0 });
    expect(await poll('fal-status-in-progress')).toEqual({ state: 'running', progress: 50 });
  });
  it('completed with a video succeeds, with the inference time', async () => {
    expect(await poll('fal-status-completed', { status: 200, body: fixture('fal-result-video') })).toEqual({
      state: 'succeeded',
      outputs: [{ kind: 'url', url: 'https://v3.fal.media/files/penguin/8s2xYQ_output.mp4', contentType: 'video/mp4' }],
      usage: { units: 'inference_seconds', amount: 41.7 },
    });
  });
  it('completed whose result is a 422 content_policy_violation is a violation', async () => {
    const s = await poll('fal-status-completed', { status: 422, body: fixture('fal-result-422-content-policy') });
    expect(s.state === 'failed' && s.error.kind).toBe('violation');
  });
  it('the other completed-but-failed results', () => {
    const kind = (status: number, name: string, headers?: Record<string, unknown>, reports = true) => {
      const s = falResultStatus(status, fixture(name), headers, reports);
      // Success without a file is no outputs (the worker settles it as no_result).
      return s.state === 'failed' ? s.error.kind : s.state === 'succeeded' && !s.outputs.length ? 'no outputs' : s.state;
    };
    expect(kind(422, 'fal-result-422-content-policy', undefined, false)).toBe('failed');
    expect(kind(422, 'fal-result-422-no-media-generated')).toBe('no outputs');
    expect(kind(422, 'fal-result-422-image-too-large')).toBe('failed');
    expect(kind(500, 'fal-result-500-runner-disconnected')).toBe('failed');
    expect(kind(200, 'fal-result-error-field')).toBe('failed');
    expect(kind(200, 'fal-result-no-file')).toBe('no outputs');
    expect(kind(200, 'fal-result-images')).toBe('succeeded');
    expect(kind(400, 'fal-result-still-in-progress')).toBe('running');
  });
  it('FAILED from the third-party schema is a failed render; an unknown request is lost', async () => {
    const f = await poll('fal-status-failed-third-party');
    expect(f.state === 'failed' && f.error.kind).toBe('failed');
    const a = createFalAdapter(channel());
    await expect(a.poll(`fal-ai/veo3.1/requests/nope`)).rejects.toMatchObject({ kind: 'lost', httpStatus: 404 });
    a.close();
  });
});

describe('submit errors', () => {
  const submitError = async (status: number, body: unknown, headers?: Record<string, string>) => {
    up.on('POST', /.*/, { status, body, headers });
    const a = createFalAdapter(channel());
    const err = await a.submit(req(veo('video-c-3.1-fast'))).catch((e) => e);
    a.close();
    return err;
  };
  it('429 and 503 are transient with Retry-After, unless fal says retrying cannot help', async () => {
    expect(await submitError(429, { detail: 'Too many requests' }, { 'Retry-After': '3' })).toMatchObject({ kind: 'transient', retryAfterMs: 3000 });
    expect(await submitError(503, fixture('fal-503-scheduling-failure'))).toMatchObject({ kind: 'transient', httpStatus: 503 });
    expect(await submitError(503, fixture('fal-503-scheduling-failure'), { 'X-Fal-Retryable': 'false' })).toMatchObject({ kind: 'failed' });
    expect(await submitError(503, fixture('fal-503-scheduling-failure'), { 'X-Fal-Needs-Retry': 'false' })).toMatchObject({ kind: 'failed' });
  });
  it('422 content_policy_violation on submit is a violation; 401 a failure of this channel', async () => {
    expect(await submitError(422, fixture('fal-result-422-content-policy'))).toMatchObject({ kind: 'violation' });
    expect(await submitError(401, { detail: 'Invalid key' })).toMatchObject({ kind: 'failed', httpStatus: 401 });
  });
});

describe('cancel', () => {
  it('PUTs the cancel URL; ALREADY_COMPLETED is a refusal, NOT_FOUND leaves nothing to cancel (providers.md 6)', async () => {
    const a = createFalAdapter(channel());
    up.on('PUT', `/fal-ai/veo3.1/requests/${ID}/cancel`, { status: 202, body: fixture('fal-cancel-accepted') });
    await a.cancel!(`fal-ai/veo3.1/requests/${ID}`);
    // The render finished and is billed: the worker must collect it, not settle the task cancelled.
    up.on('PUT', `/fal-ai/veo3.1/requests/${ID}/cancel`, { status: 400, body: fixture('fal-cancel-already-completed') });
    await expect(a.cancel!(`fal-ai/veo3.1/requests/${ID}`)).rejects.toMatchObject({ kind: 'failed', httpStatus: 400 });
    up.on('PUT', `/fal-ai/veo3.1/requests/${ID}/cancel`, { status: 404, body: { status: 'NOT_FOUND' } });
    await a.cancel!(`fal-ai/veo3.1/requests/${ID}`);
    expect(up.requests.map((r) => [r.method, r.headers.authorization])).toEqual([['PUT', 'Key fal-key'], ['PUT', 'Key fal-key'], ['PUT', 'Key fal-key']]);
    a.close();
  });
});

describe('webhook signatures (ED25519 over the JWKS keys)', () => {
  let keys: { publicKey: KeyObject; privateKey: KeyObject };
  let other: { publicKey: KeyObject; privateKey: KeyObject };
  beforeAll(() => {
    keys = generateKeyPairSync('ed25519');
    other = generateKeyPairSync('ed25519');
  });
  const serveJwks = (...pubs: KeyObject[]) =>
    up.on('GET', '/.well-known/jwks.json', { body: { keys: pubs.map((p) => ({ ...p.export({ format: 'jwk' }), kid: 'k', use: 'sig' })) } });
  const signed = (body: Buffer, priv: KeyObject, ts = Math.floor(Date.now() / 1000), requestId = ID) => {
    const msg = [requestId, 'user-1', String(ts), createHash('sha256').update(body).digest('hex')].join('\n');
    return {
      'x-fal-webhook-request-id': requestId,
      'x-fal-webhook-user-id': 'user-1',
      'x-fal-webhook-timestamp': String(ts),
      'x-fal-webhook-signature': sign(null, Buffer.from(msg), priv).toString('hex'),
    };
  };
  const body = Buffer.from(JSON.stringify(fixture('fal-webhook-ok')));
  const query = { fal_app: 'fal-ai/veo3.1' };

  it('accepts a signed callback and names the upstream id; fetches the keys once', async () => {
    serveJwks(other.publicKey, keys.publicKey);
    const a = createFalAdapter(channel());
    expect(await a.verifyCallback!({ headers: signed(body, keys.privateKey), rawBody: body, query })).toEqual({ upstreamId: `fal-ai/veo3.1/requests/${ID}` });
    const errorBody = Buffer.from(JSON.stringify(fixture('fal-webhook-error')));
    expect(await a.verifyCallback!({ headers: signed(errorBody, keys.privateKey), rawBody: errorBody, query })).toEqual({ upstreamId: `fal-ai/veo3.1/requests/${ID}` });
    expect(up.requests.filter((r) => r.path === '/.well-known/jwks.json')).toHaveLength(1);
    a.close();
  });
  it('refuses a wrong key, a changed body, an old timestamp, another request id', async () => {
    serveJwks(keys.publicKey);
    const a = createFalAdapter(channel());
    const check = (headers: Record<string, string>, raw = body) => a.verifyCallback!({ headers, rawBody: raw, query });
    expect(await check(signed(body, other.privateKey))).toBeNull();
    expect(await check(signed(body, keys.privateKey), Buffer.from(body.toString().replace('OK', 'ERROR')))).toBeNull();
    expect(await check(signed(body, keys.privateKey, Math.floor(Date.now() / 1000) - 600))).toBeNull();
    expect(await check(signed(body, keys.privateKey, undefined, 'another-id'))).toBeNull();
    expect(await check({})).toBeNull();
    a.close();
  });
  it('picks up a rotated key, refetching at most once a minute on a miss', async () => {
    let jwks = [other.publicKey];
    let fetches = 0;
    let clock = Date.now();
    const keySet = new FalKeySet('https://keys.example/jwks.json', async () => {
      fetches++;
      return { keys: jwks.map((p) => p.export({ format: 'jwk' })) };
    }, () => clock);
    const input = () => ({ headers: signed(body, keys.privateKey, Math.floor(clock / 1000)), rawBody: body });
    expect(await verifyFalWebhook(input(), keySet, clock)).toBeNull();
    jwks = [other.publicKey, keys.publicKey];
    clock += 10_000;
    expect(await verifyFalWebhook(input(), keySet, clock)).toBeNull();
    expect(fetches).toBe(1);
    clock += 60_000;
    expect(await verifyFalWebhook(input(), keySet, clock)).toBe(ID);
    expect(fetches).toBe(2);
  });
});

describe('answers of unknown shape and unknown apps (2026-11-27)', () => {
  const path = `/fal-ai/veo3.1/requests/${ID}`;
  it.each([
    ['a status word fal-js does not list (IN_QUEUE, IN_PROGRESS, COMPLETED only)', { status: 'RENDERING' }],
    ['a status that is not an object', ['COMPLETED']],
  ])('%s is a classified failure, never a success', async (_what, body) => {
    up.on('GET', `${path}/status`, { body });
    const a = createFalAdapter(channel());
    await expect(a.poll(`fal-ai/veo3.1/requests/${ID}`)).rejects.toMatchObject({ name: 'UpstreamError', kind: 'transient' });
    a.close();
  });

  it('a COMPLETED result of a shape no client describes is no file (no_result), never a success with a file', async () => {
    up.on('GET', `${path}/status`, { body: fixture('fal-status-completed') });
    up.on('GET', path, { status: 200, body: { video: 'not-an-object', images: 'nope' } });
    const a = createFalAdapter(channel());
    // A success without outputs: the worker settles it as no_result (refunded), the task never gets a file.
    expect(await a.poll(`fal-ai/veo3.1/requests/${ID}`)).toEqual({ state: 'succeeded', outputs: [] });
    a.close();
  });

  it('an app fal does not host (404 on submit) is an unknown model (the worker skips this channel for it)', async () => {
    up.on('POST', /.*/, { status: 404, body: { detail: 'Application "veo3.0" not found' } });
    const a = createFalAdapter(channel());
    await expect(a.submit(req(veo('video-c-3.1-fast')))).rejects.toMatchObject({ kind: 'unknown_model', httpStatus: 404 });
    a.close();
  });
});

it('never sends hosted Seedance reference audio without an image or video (it refuses it)', async () => {
  up.reset();
  const a = createFalAdapter(channel());
  await expect(a.submit(req(seedance(), [reference('reference_audio', 'https://m/a', 'audio/mpeg')]))).rejects.toMatchObject({ kind: 'failed', message: expect.stringMatching(/not sent: Seedance refuses reference audio/) });
  expect(up.requests).toHaveLength(0);
  a.close();
});
