// ModelArk (Seedance tasks, Seedream images) against its documented payloads, served over HTTP.
import { AxiosError, AxiosHeaders } from 'axios';
import { getModel, type ImageModelInfo, type ImageTaskSpec, type VideoTaskSpec } from '@mediagen/catalog';
import type { ChannelAdapter, RenderReference, RenderRequest } from '../../src/channel-adapter';
import { createModelarkAdapter } from '../../src/modelark/modelark-adapter';
import { modelarkChannelSchema } from '../../src/modelark/modelark-config';
import { modelarkUnsupported, seedanceBody, seedreamBody, seedreamShortfall, seedreamSize } from '../../src/modelark/modelark-request';
import { seedreamSizeFor, seedreamVersion } from '../../src/modelark/seedream-sizes';
import { FixtureServer, loadFixture, startFixtureServer } from './fixture-server';

const fx = (name: string) => loadFixture('modelark', name);
let server: FixtureServer;
beforeAll(async () => (server = await startFixtureServer()));
afterAll(() => server.close());
beforeEach(() => server.reset());

const channel = (extra: Record<string, unknown> = {}) =>
  modelarkChannelSchema.parse({
    id: 'ark', protocol: 'modelark', baseUrl: server?.baseUrl ?? 'http://127.0.0.1:1', apiKey: 'ark-key', costOrder: 1,
    models: { 'video-b-2.5': 'dreamina-seedance-2-5-260628', 'video-b-2.0': 'dreamina-seedance-2-0-260128', 'image-a-5.0': 'seedream-5-0-260128' },
    ...extra,
  });
const adapters: ChannelAdapter[] = [];
const adapter = (extra: Record<string, unknown> = {}) => {
  const a = createModelarkAdapter(channel(extra));
  adapters.push(a);
  return a;
};
afterAll(() => adapters.forEach((a) => a.close()));

const ref = (role: RenderReference['role'], url: string): RenderReference => ({ role, url, contentType: 'image/*', data: async () => Buffer.alloc(0) });
const video = (extra: Partial<VideoTaskSpec> = {}): VideoTaskSpec => ({
  type: 'video', model: 'video-b-2.5', prompt: 'a fox in the snow, image 1 then video 1', duration: 5, ratio: '9:16', resolution: '480p',
  tier: 'third-party', variant: null, refMode: null, effort: null, seed: null, optimizePrompt: null, media: [], firstFrame: null, lastFrame: null, ...extra,
});
const image = (extra: Partial<ImageTaskSpec> = {}): ImageTaskSpec => ({ type: 'image', model: 'image-a-5.0', prompt: 'a red bicycle', ratio: '16:9', resolution: '2k', images: [], ...extra });
const req = (spec: VideoTaskSpec | ImageTaskSpec, references: RenderReference[] = [], extra: Partial<RenderRequest> = {}): RenderRequest => ({
  taskId: 'task-1', attemptId: 'att-1', spec, outputSeconds: spec.type === 'video' ? 7 : null, references, ...extra,
});

describe('request mapping', () => {
  it('puts the prompt first and every reference in our numbering order with its role', () => {
    const refs = [ref('reference_image', 'https://files.example/a.png'), ref('reference_video', 'https://files.example/b.mp4'),
      ref('reference_image', 'https://files.example/c.png'), ref('reference_audio', 'https://files.example/d.mp3')];
    const body = seedanceBody(req(video(), refs, { callbackUrl: 'https://relay.example/hooks/upstream/ark?task=t&token=x' }), video(), 'dreamina-seedance-2-5-260628', channel());
    expect(body).toEqual({
      model: 'dreamina-seedance-2-5-260628',
      content: [
        { type: 'text', text: 'a fox in the snow, image 1 then video 1' },
        { type: 'image_url', image_url: { url: 'https://files.example/a.png' }, role: 'reference_image' },
        { type: 'video_url', video_url: { url: 'https://files.example/b.mp4' }, role: 'reference_video' },
        { type: 'image_url', image_url: { url: 'https://files.example/c.png' }, role: 'reference_image' },
        { type: 'audio_url', audio_url: { url: 'https://files.example/d.mp3' }, role: 'reference_audio' },
      ],
      ratio: '9:16', resolution: '480p', duration: 7, watermark: false,
      // No client seed: one derived from the attempt, which the task list echoes (orphan search).
      seed: 272836131,
      callback_url: 'https://relay.example/hooks/upstream/ark?task=t&token=x',
    });
  });

  it('sends frames with their roles, the seed when set, and the channel settings', () => {
    const body = seedanceBody(req(video({ seed: 42 }), [ref('first_frame', 'https://f/1.png'), ref('last_frame', 'https://f/2.png')]), video({ seed: 42 }), 'm',
      channel({ generateAudio: true, serviceTier: 'flex', executionExpiresAfterS: 7200, watermark: true }));
    expect(body).toMatchObject({
      content: [{ type: 'text' }, { role: 'first_frame', image_url: { url: 'https://f/1.png' } }, { role: 'last_frame', image_url: { url: 'https://f/2.png' } }],
      seed: 42, generate_audio: true, service_tier: 'flex', execution_expires_after: 7200, watermark: true,
    });
  });

  it('asks Seedream for an explicit size of the requested ratio, with the reference images', () => {
    expect(seedreamSize('16:9', '1k')).toBe('1280x720');
    expect(seedreamSize('21:9', '4k')).toBe('6048x2592');
    expect(seedreamSize('3:4', null)).toBe('1728x2304');
    expect(seedreamSize('16:9', '1k', 'seedream-4-0-250828')).toBe('1280x720');
    const body = seedreamBody(req(image(), [ref('reference_image', 'https://f/1.png'), ref('reference_image', 'https://f/2.png')]), image(), 'seedream-5-0-260128', channel());
    expect(body).toEqual({ model: 'seedream-5-0-260128', prompt: 'a red bicycle', size: '2560x1440', response_format: 'url', watermark: false, image: ['https://f/1.png', 'https://f/2.png'] });
  });

  // BytePlus ModelArk image generation (2026-11-27): 4.0 takes 921,600-16,777,216 pixels, 4.5
  // 3,686,400-16,777,216, 5.0 lite 3,686,400-10,404,496, 5.0 pro up to 4,194,304.
  it.each([
    ['seedream-4-5-251128', '16:9', '1k', '2560x1440', 'larger'],
    ['seedream-4-5-251128', '1:1', '1k', '2048x2048', 'larger'],
    ['seedream-4-5-251128', '1:1', '4k', '4096x4096', 'as-sold'],
    ['seedream-5-0-260128', '9:16', '1k', '1440x2560', 'larger'],
    ['seedream-5-0-260128', '1:1', '2k', '2048x2048', 'as-sold'],
    ['seedream-5-0-260128', '1:1', '4k', '3216x3216', 'smaller'],
    ['seedream-5-0-260128', '21:9', '4k', '4912x2096', 'smaller'],
    ['dola-seedream-5-0-pro-260628', '1:1', '4k', '2048x2048', 'smaller'],
    ['seedream-4-0-250828', '16:9', '1k', '1280x720', 'as-sold'],
  ])('sends %s at %s %s as %s (%s than sold or as sold), a size it accepts', (model, ratio, resolution, size, delivered) => {
    expect(seedreamSize(ratio, resolution, model)).toBe(size);
    const version = seedreamVersion(model)!;
    const sent = seedreamSizeFor(ratio, resolution, version);
    expect(sent.delivered).toBe(delivered);
    expect(sent.width * sent.height).toBeGreaterThanOrEqual(version.minPixels);
    expect(sent.width * sent.height).toBeLessThanOrEqual(version.maxPixels);
    const [rw, rh] = ratio.split(':').map(Number);
    // Within 1 %: sides are multiples of 16.
    expect(Math.abs(sent.width / sent.height / (rw / rh) - 1)).toBeLessThan(0.01);
  });

  it('sends every size the catalog sells within the range of the Seedream the example config names', () => {
    for (const [model, up] of [['image-a-5.0', 'seedream-5-0-260128'], ['image-b-2.5', 'seedream-4-5-251128'], ['image-b-2', 'seedream-4-0-250828']]) {
      const info = getModel(model) as ImageModelInfo;
      const version = seedreamVersion(up)!;
      for (const ratio of info.ratios)
        for (const resolution of info.resolutions.length ? info.resolutions : [null]) {
          const { width, height } = seedreamSizeFor(ratio, resolution, version);
          expect(width * height).toBeGreaterThanOrEqual(version.minPixels);
          expect(width * height).toBeLessThanOrEqual(version.maxPixels);
        }
    }
  });

  it('refuses at config load the models whose modes Seedance cannot express', () => {
    expect(modelarkUnsupported('video-b-2.0-mini')).toBeNull();
    expect(modelarkUnsupported('image-b-2.5')).toBeNull();
    expect(modelarkUnsupported('video-a-h3')).toMatch(/lip-sync/);
    expect(modelarkUnsupported('video-c-3.1')).toMatch(/Veo/);
    expect(adapter().unsupported!('video-a-h3', null)).toMatch(/video-a-h3/);
  });

  it('refuses at config load an image model Seedream cannot serve, naming the model and the upstream', () => {
    const image = (over: Partial<ImageModelInfo>): ImageModelInfo => ({ ...(getModel('image-a-5.0') as ImageModelInfo), ...over });
    expect(seedreamShortfall(image({}), 'seedream-5-0-260128')).toBeNull();
    expect(seedreamShortfall(image({ id: 'image-x', ratios: ['1:1', '5:4'] }), 'seedream-5-0-260128')).toBe('image-x offers ratio 5:4, for which this adapter knows no Seedream size');
    expect(seedreamShortfall(image({ id: 'image-x', resolutions: ['1k', '8k'] }), 'seedream-4-5-251128')).toMatch(/image-x offers resolution 8k/);
    // Up to 14 reference images on 4.0, 4.5 and 5.0 lite (BytePlus, 2026-11-27); 10 on 5.0 pro.
    expect(seedreamShortfall(image({ id: 'image-x', maxImages: 14 }), 'seedream-4-0-250828')).toBeNull();
    expect(seedreamShortfall(image({ id: 'image-x', maxImages: 14 }), 'seedream-4-5-251128')).toBeNull();
    expect(seedreamShortfall(image({ id: 'image-x', maxImages: 15 }), 'seedream-4-5-251128')).toBe('image-x takes up to 15 reference images; seedream-4-5-251128 takes 14');
    expect(seedreamShortfall(image({ id: 'image-x', maxImages: 12 }), 'dola-seedream-5-0-pro-260628')).toBe('image-x takes up to 12 reference images; dola-seedream-5-0-pro-260628 takes 10');
    expect(seedreamShortfall(image({ id: 'image-x', maxImages: 12 }), 'doubao-seedream-5-0-260128')).toBeNull();
    // The legacy text-to-image model takes no reference image; every catalog image model takes some.
    const a = adapter({ models: { 'image-a-5.0': 'seedream-3-0-t2i-250415', 'image-b-2.5': 'dreamina-seedance-2-0-260128', 'video-b-2.0': 'seedream-4-5-251128' } });
    // A Seedream that takes no reference image serves the text-only part of the model (routing per task).
    expect(a.unsupported!('image-a-5.0', null)).toBeNull();
    expect(a.coverage!('image-a-5.0', null)).toEqual({ maxRefs: { image: 0 } });
    expect(a.unsupported!('image-b-2.5', null)).toMatch(/dreamina-seedance-2-0-260128 is a Seedance video model; image-b-2.5 is an image model/);
    expect(a.unsupported!('video-b-2.0', null)).toMatch(/seedream-4-5-251128 is a Seedream image model; video-b-2.0 is a video model/);
    // Every catalog image model on the Seedream ids of the example config.
    for (const [model, up] of [['image-a-5.0', 'seedream-5-0-260128'], ['image-b-2.5', 'seedream-4-5-251128'], ['image-b-2', 'seedream-4-0-250828']])
      expect(adapter({ models: { [model]: up } }).unsupported!(model, null)).toBeNull();
  });

  it('refuses a video-b model mapped to a Seedance version that renders less than the catalog sells', () => {
    const a = adapter({ models: { 'video-b-2.5': 'dreamina-seedance-2-0-260128', 'video-b-2.0': 'seedance-1-0-pro-250528', 'video-b-2.0-mini': 'dreamina-seedance-2-0-mini-260615' } });
    // A smaller Seedance serves the part of the model it can render; routing sends it only those tasks.
    expect(a.unsupported!('video-b-2.5', null)).toBeNull();
    expect(a.coverage!('video-b-2.5', null)).toEqual({ seconds: { min: 4, max: 15 }, maxRefs: { image: 9, video: 3, audio: 3 } });
    expect(a.coverage!('video-b-2.0', null)).toEqual({ seconds: { min: 4, max: 12 }, maxRefs: { video: 0, audio: 0 } });
    expect(a.unsupported!('video-b-2.0-mini', null)).toBeNull();
    // An id we cannot place is the operator's call.
    expect(adapter({ models: { 'video-b-2.5': 'my-private-endpoint-ep-2026' } }).unsupported!('video-b-2.5', null)).toBeNull();
    expect(adapter().unsupported!('video-b-2.5', null)).toBeNull();
  });
});

describe('Seedance task', () => {
  it('creates a task with the bearer key and reads its id', async () => {
    server.on('POST', '/contents/generations/tasks', fx('seedance-create-response'));
    await expect(adapter().submit(req(video()))).resolves.toEqual({ upstreamId: 'cgt-20260828062711-hj94q' });
    expect(server.requests[0].headers.authorization).toBe('Bearer ark-key');
    expect(server.requests[0].body).toMatchObject({ model: 'dreamina-seedance-2-5-260628', duration: 7 });
  });

  it.each([
    ['seedance-task-queued', { state: 'running', progress: 0 }],
    ['seedance-task-running', { state: 'running', progress: 50 }],
  ])('maps %s to running', async (name, expected) => {
    server.on('GET', '/contents/generations/tasks/cgt-1', fx(name));
    await expect(adapter().poll('cgt-1')).resolves.toEqual(expected);
  });

  it('returns the signed video link untouched, with the tokens used', async () => {
    server.on('GET', '/contents/generations/tasks/cgt-1', fx('seedance-task-succeeded'));
    const s = await adapter().poll('cgt-1');
    const url = (fx('seedance-task-succeeded').body as { content: { video_url: string } }).content.video_url;
    expect(s).toEqual({ state: 'succeeded', outputs: [{ kind: 'url', url, contentType: 'video/mp4' }], usage: { units: 'tokens', amount: 108900 } });
  });

  it.each([
    ['seedance-task-failed-output-video-sensitive', 'violation', 'failed'],
    ['seedance-task-failed-output-copyright', 'violation', 'failed'],
    ['seedance-task-failed-internal', 'failed', 'failed'],
    ['seedance-task-failed-moderation-outage', 'failed', 'failed'],
    ['seedance-task-cancelled', 'failed', 'failed'],
    ['seedance-task-expired', 'failed', 'failed'],
  ])('maps %s to %s (reporting channel) / %s (quiet channel)', async (name, reporting, quiet) => {
    server.on('GET', '/contents/generations/tasks/cgt-1', fx(name));
    const a = await adapter({ reportsViolations: true }).poll('cgt-1');
    const b = await adapter({ reportsViolations: false }).poll('cgt-1');
    expect(a.state === 'failed' && a.error.kind).toBe(reporting);
    expect(b.state === 'failed' && b.error.kind).toBe(quiet);
  });

  it('prices the tokens when the channel knows the model\'s price (for the margin per model)', async () => {
    server.on('GET', '/contents/generations/tasks/cgt-1', fx('seedance-task-succeeded'));
    const s = await adapter({ prices: { 'seedance-1-0-pro-250528': { microUsdPerMillionTokens: 2_500_000 } } }).poll('cgt-1');
    // 108,900 tokens at 2.50 USD per million tokens.
    expect(s.state === 'succeeded' && s.usage).toEqual({ units: 'tokens', amount: 108900, costMicroUsd: 272_250 });
    server.on('POST', '/images/generations', fx('seedream-answer-url'));
    const img = await adapter({ prices: { 'seedream-5-0-260128': { microUsdPerImage: 35_000 } } }).submit(req(image()));
    expect(img.status?.state === 'succeeded' && img.status.usage).toEqual({ units: 'tokens', amount: 14400, costMicroUsd: 35_000 });
  });

  it('reports success without a video as no outputs (the worker settles it as no_result)', async () => {
    server.on('GET', '/contents/generations/tasks/cgt-1', fx('seedance-task-succeeded-without-video-url'));
    await expect(adapter().poll('cgt-1')).resolves.toEqual({ state: 'succeeded', outputs: [], usage: { units: 'tokens', amount: 108900 } });
  });

  it('says "expired" in the failure of an expired task', async () => {
    server.on('GET', '/contents/generations/tasks/cgt-1', fx('seedance-task-expired'));
    const s = await adapter().poll('cgt-1');
    expect(s.state === 'failed' && s.error.message).toMatch(/expired/);
  });

  it.each([
    ['error-400-input-text-sensitive', 'violation', 'failed'],
    ['error-400-input-image-real-person', 'violation', 'failed'],
    ['error-400-input-text-risk', 'violation', 'failed'],
    ['error-400-invalid-parameter', 'failed', 'failed'],
    ['error-401-authentication', 'failed', 'failed'],
    ['error-403-account-overdue', 'failed', 'failed'],
    ['error-404-model-not-open', 'unknown_model', 'unknown_model'],
    ['error-429-server-overloaded', 'transient', 'transient'],
    ['error-429-set-limit-exceeded', 'failed', 'failed'],
    ['error-500-internal', 'transient', 'transient'],
  ])('classifies a submit answered %s as %s (reporting) / %s (quiet)', async (name, reporting, quiet) => {
    server.on('POST', '/contents/generations/tasks', fx(name));
    await expect(adapter({ reportsViolations: true }).submit(req(video()))).rejects.toMatchObject({ kind: reporting });
    await expect(adapter().submit(req(video()))).rejects.toMatchObject({ kind: quiet });
  });

  it('retries a 429 after the hint it carries', async () => {
    server.on('POST', '/contents/generations/tasks', fx('error-429-endpoint-rpm-exceeded'));
    await expect(adapter().submit(req(video()))).rejects.toMatchObject({ kind: 'transient', retryAfterMs: 7000, httpStatus: 429 });
  });

  it('knows a task the upstream forgot as lost, not failed', async () => {
    server.on('GET', '/contents/generations/tasks/cgt-gone', fx('error-404-task-not-found'));
    await expect(adapter().poll('cgt-gone')).rejects.toMatchObject({ kind: 'lost', httpStatus: 404 });
  });

  it('treats a status it cannot read as transient', async () => {
    server.on('GET', '/contents/generations/tasks/cgt-1', { status: 200, body: { id: 'cgt-1', status: 'thinking' } });
    await expect(adapter().poll('cgt-1')).rejects.toMatchObject({ kind: 'transient' });
    server.on('GET', '/contents/generations/tasks/cgt-1', { status: 200, body: '<html>' });
    await expect(adapter().poll('cgt-1')).rejects.toMatchObject({ kind: 'transient' });
  });

  it('cancels with DELETE; a task that already runs refuses, and the refusal is reported (providers.md 1.8)', async () => {
    server.on('DELETE', '/contents/generations/tasks/cgt-1', { status: 200, body: {} });
    await adapter().cancel!('cgt-1');
    // "On running it is not allowed (error)": the render goes on and is billed, so the worker must
    // let it finish rather than settle the task cancelled and refunded (docs/api.md, Cancel).
    server.on('DELETE', '/contents/generations/tasks/cgt-2', fx('error-400-cancel-running-task'));
    await expect(adapter().cancel!('cgt-2')).rejects.toMatchObject({ kind: 'failed', httpStatus: 400 });
    server.on('DELETE', '/contents/generations/tasks/cgt-3', fx('error-500-internal'));
    await expect(adapter().cancel!('cgt-3')).rejects.toMatchObject({ kind: 'transient' });
    // A task Ark no longer knows (deleted, or older than 7 days) leaves nothing to cancel.
    server.on('DELETE', '/contents/generations/tasks/cgt-4', fx('error-404-task-not-found'));
    await expect(adapter().cancel!('cgt-4')).resolves.toBeUndefined();
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'DELETE /contents/generations/tasks/cgt-1', 'DELETE /contents/generations/tasks/cgt-2', 'DELETE /contents/generations/tasks/cgt-3',
      'DELETE /contents/generations/tasks/cgt-4']);
  });

  it('reads the task id of an (unsigned) callback, and a succeeded task\'s video link as a claim only', async () => {
    const a = adapter();
    const succeeded = fx('seedance-task-succeeded').body as { content: { video_url: string } };
    const body = Buffer.from(JSON.stringify(succeeded));
    // The signed link exactly as given (its query is the signature).
    await expect(a.verifyCallback!({ headers: {}, rawBody: body, query: {} })).resolves.toEqual({
      upstreamId: 'cgt-20260828062711-hj94q', resultUrls: [succeeded.content.video_url],
    });
    for (const name of ['seedance-task-running', 'seedance-task-failed-internal', 'seedance-task-succeeded-without-video-url']) {
      const task = fx(name).body as { id: string };
      await expect(a.verifyCallback!({ headers: {}, rawBody: Buffer.from(JSON.stringify(task)), query: {} })).resolves.toEqual({ upstreamId: task.id });
    }
    await expect(a.verifyCallback!({ headers: {}, rawBody: Buffer.from('nope'), query: {} })).resolves.toBeNull();
  });

  it('classifies an expired result link as unusable', () => {
    const err = new AxiosError('forbidden', 'ERR_BAD_REQUEST');
    err.response = { status: 403, statusText: '', headers: new AxiosHeaders(), config: { headers: new AxiosHeaders() }, data: '<Error><Code>AccessDenied</Code></Error>' };
    expect(adapter().classifyError(err, 'download')).toMatchObject({ kind: 'unusable' });
  });
});

describe('orphan search (a create whose answer was lost)', () => {
  const LIST = '/contents/generations/tasks?page_num=1&page_size=100&filter.model=dreamina-seedance-2-5-260628';
  // Our first send, seconds before the listed task was created (1795408930 = 04:42:10 UTC).
  const sentAt = new Date('2026-11-23T04:42:09Z');

  it('tags a request without a client seed with a seed of its own attempt, keeps a client seed, and adds none when the search is off', () => {
    expect(seedanceBody(req(video()), video(), 'm', channel()).seed).toBe(272836131);
    expect(seedanceBody(req(video(), [], { attemptId: 'att-2' }), video(), 'm', channel()).seed).toBe(278882935);
    expect(seedanceBody(req(video({ seed: 7 })), video({ seed: 7 }), 'm', channel()).seed).toBe(7);
    expect(seedanceBody(req(video()), video(), 'm', channel({ orphanSearch: false })).seed).toBeUndefined();
    expect(adapter().capabilities.findOrphan).toBe(true);
    expect(adapter({ orphanSearch: false }).capabilities.findOrphan).toBe(false);
  });

  it('finds the task by the seed of its attempt in the model\'s task list, created after the first send', async () => {
    server.on('GET', LIST, fx('seedance-list-tasks'));
    await expect(adapter().findOrphan!(req(video(), [], { submitSentAt: sentAt }))).resolves.toBe('cgt-20261123044210-a1b2c');
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET ${LIST}`]);
    expect(server.requests[0].headers.authorization).toBe('Bearer ark-key');
  });

  it('finds nothing for another attempt, and nothing created before the first send', async () => {
    server.on('GET', LIST, fx('seedance-list-tasks'));
    await expect(adapter().findOrphan!(req(video(), [], { attemptId: 'att-2', submitSentAt: sentAt }))).resolves.toBeNull();
    // The same seed on a task made two days before the send is someone else's (or an old) render.
    await expect(adapter().findOrphan!(req(video(), [], { submitSentAt: new Date('2026-11-23T05:30:00Z') }))).resolves.toBeNull();
  });

  it('takes a task with the client\'s own seed only when a single one matches seed, ratio, duration and resolution', async () => {
    server.on('GET', LIST, fx('seedance-list-tasks'));
    const own = video({ seed: 10423, ratio: '16:9', resolution: '720p' });
    await expect(adapter().findOrphan!(req(own, [], { outputSeconds: 5, submitSentAt: sentAt }))).resolves.toBe('cgt-20261123044055-x9y8z');
    // Another duration: not this request's task.
    await expect(adapter().findOrphan!(req(own, [], { outputSeconds: 6, submitSentAt: sentAt }))).resolves.toBeNull();
    const listed = fx('seedance-list-tasks').body as { items: Record<string, unknown>[] };
    server.on('GET', LIST, { status: 200, body: { items: [listed.items[1], { ...listed.items[1], id: 'cgt-twin' }], total: 2 } });
    await expect(adapter().findOrphan!(req(own, [], { outputSeconds: 5, submitSentAt: sentAt }))).resolves.toBeNull();
  });

  it('reads further pages while they are full and inside the window', async () => {
    const listed = fx('seedance-list-tasks').body as { items: Record<string, unknown>[] };
    const newer = Array.from({ length: 100 }, (_, i) => ({ ...listed.items[1], id: `cgt-newer-${i}`, seed: i, created_at: 1795409000 }));
    server.on('GET', LIST, { status: 200, body: { items: newer, total: 102 } });
    server.on('GET', LIST.replace('page_num=1', 'page_num=2'), { status: 200, body: { items: [listed.items[0], listed.items[2]], total: 102 } });
    await expect(adapter().findOrphan!(req(video(), [], { submitSentAt: sentAt }))).resolves.toBe('cgt-20261123044210-a1b2c');
    expect(server.requests).toHaveLength(2);
  });

  it('fails (not transient) on an upstream without the list, so the worker submits without a search; transient on a 5xx', async () => {
    server.on('GET', LIST, { status: 404, body: { error: { code: 'InvalidEndpoint.NotFound', message: 'The requested endpoint does not exist.' } } });
    await expect(adapter().findOrphan!(req(video(), [], { submitSentAt: sentAt }))).rejects.toMatchObject({ kind: 'failed' });
    server.on('GET', LIST, { status: 200, body: '<html>' });
    await expect(adapter().findOrphan!(req(video(), [], { submitSentAt: sentAt }))).rejects.toMatchObject({ kind: 'failed' });
    server.on('GET', LIST, fx('error-500-internal'));
    await expect(adapter().findOrphan!(req(video(), [], { submitSentAt: sentAt }))).rejects.toMatchObject({ kind: 'transient' });
  });

  it('has no task to find for a synchronous Seedream image', async () => {
    await expect(adapter().findOrphan!(req(image(), [], { submitSentAt: sentAt }))).resolves.toBeNull();
    expect(server.requests).toHaveLength(0);
  });
});

describe('Seedream images (synchronous)', () => {
  it('answers the finished render from the submit, with the link and tokens', async () => {
    server.on('POST', '/images/generations', fx('seedream-answer-url'));
    const r = await adapter().submit(req(image()));
    expect(r.upstreamId).toBe('seedream:att-1');
    expect(r.status).toEqual({
      state: 'succeeded',
      outputs: [{ kind: 'url', url: expect.stringContaining('X-Tos-Signature=ab12') }],
      usage: { units: 'tokens', amount: 14400 },
    });
    expect(server.requests[0].body).toMatchObject({ size: '2560x1440', model: 'seedream-5-0-260128' });
  });

  it('returns inline images as bytes with their sniffed type', async () => {
    server.on('POST', '/images/generations', fx('seedream-answer-b64'));
    const r = await adapter({ imageResponseFormat: 'b64_json' }).submit(req(image()));
    expect(server.requests[0].body).toMatchObject({ response_format: 'b64_json' });
    expect(r.status?.state === 'succeeded' && r.status.outputs[0]).toMatchObject({ kind: 'inline', contentType: 'image/png' });
  });

  it('reports a refused image as a violation on reporting channels, and an empty answer as no outputs', async () => {
    server.on('POST', '/images/generations', fx('seedream-answer-output-image-sensitive'));
    const flagged = await adapter({ reportsViolations: true }).submit(req(image()));
    expect(flagged.status?.state === 'failed' && flagged.status.error.kind).toBe('violation');
    const quiet = await adapter().submit(req(image()));
    expect(quiet.status?.state === 'failed' && quiet.status.error.kind).toBe('failed');
    server.on('POST', '/images/generations', fx('seedream-answer-empty'));
    const empty = await adapter().submit(req(image()));
    expect(empty.status).toEqual({ state: 'succeeded', outputs: [] });
  });

  it('has nothing to poll after a lost synchronous answer', async () => {
    await expect(adapter().poll('seedream:att-1')).rejects.toMatchObject({ kind: 'lost' });
    expect(server.requests).toHaveLength(0);
  });
});

describe('answers of unknown shape and unknown models (2026-11-27)', () => {
  it('a Seedream answer of a shape no client describes fails this channel (not re-rendered here, never a success)', async () => {
    server.on('POST', '/images/generations', loadFixture('modelark', 'seedream-answer-unknown-shape'));
    await expect(adapter().submit(req(image()))).rejects.toMatchObject({ name: 'UpstreamError', kind: 'failed', message: expect.stringMatching(/unexpected answer/) });
  });

  it('a Seedance task of a shape no client describes is read again later (transient), never a success', async () => {
    server.on('GET', '/contents/generations/tasks/cgt-1', { status: 200, body: { id: 'cgt-1', status: 42 } });
    await expect(adapter().poll('cgt-1')).rejects.toMatchObject({ name: 'UpstreamError', kind: 'transient' });
    server.on('GET', '/contents/generations/tasks/cgt-2', { status: 200, body: { id: 'cgt-2', status: 'rendering-somehow' } });
    await expect(adapter().poll('cgt-2')).rejects.toMatchObject({ kind: 'transient', message: expect.stringMatching(/unexpected task status/) });
  });

  it.each(['error-404-invalid-endpoint-or-model', 'error-404-model-not-open'])('a model the account cannot reach (%s) is an unknown model at submit', async (name) => {
    server.on('POST', '/images/generations', loadFixture('modelark', name));
    await expect(adapter().submit(req(image()))).rejects.toMatchObject({ kind: 'unknown_model', httpStatus: 404 });
  });

  it('sends a 1k image to Seedream 4.5 at the 2K size of its ratio (4.5 refuses fewer than 3,686,400 pixels)', async () => {
    server.on('POST', '/images/generations', loadFixture('modelark', 'seedream-answer-url'));
    await adapter({ models: { 'image-b-2.5': 'seedream-4-5-251128' } }).submit(req(image({ model: 'image-b-2.5', resolution: '1k', ratio: '9:16' })));
    expect(server.requests[0].body).toMatchObject({ model: 'seedream-4-5-251128', size: '1440x2560' });
  });
});

it('never sends Seedance 2.x reference audio without an image or video (it refuses it): failed, for the next channel', async () => {
  const a = adapter();
  await expect(a.submit(req(video({ model: 'video-b-2.0' }), [ref('reference_audio', 'https://f/a.mp3')]))).rejects.toMatchObject({ kind: 'failed', message: expect.stringMatching(/not sent: Seedance refuses reference audio without a reference image or video/) });
  expect(server.requests).toHaveLength(0);
});
