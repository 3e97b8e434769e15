// MiniMax video v2 (our video-a-h3) against its documented payloads, served over HTTP.
import type { VideoTaskSpec } from '@mediagen/catalog';
import type { ChannelAdapter, RenderReference, RenderRequest } from '../../src/channel-adapter';
import { createMinimaxAdapter } from '../../src/minimax/minimax-adapter';
import { minimaxChannelSchema } from '../../src/minimax/minimax-config';
import { LIP_SYNC_TEXT, minimaxBody, minimaxUnsupported } from '../../src/minimax/minimax-request';
import { FixtureServer, loadFixture, startFixtureServer } from '../modelark/fixture-server';

const fx = (name: string) => loadFixture('minimax', name);
let server: FixtureServer;
beforeAll(async () => (server = await startFixtureServer()));
afterAll(() => server.close());
beforeEach(() => server.reset());

const FULL = { effortModels: { '1.5x': 'MiniMax-H3', '2x': 'MiniMax-H3-Max' } };
const channel = (extra: Record<string, unknown> = {}) =>
  minimaxChannelSchema.parse({
    id: 'mm', protocol: 'minimax', baseUrl: server?.baseUrl ?? 'http://127.0.0.1:1', apiKey: 'mm-key', costOrder: 1, reportsViolations: true,
    models: { 'video-a-h3': 'MiniMax-H3' }, ...FULL, ...extra,
  });
const adapters: ChannelAdapter[] = [];
const adapter = (extra: Record<string, unknown> = {}) => {
  const a = createMinimaxAdapter(channel(extra));
  adapters.push(a);
  return a;
};
afterAll(() => adapters.forEach((a) => a.close()));

const ref = (role: RenderReference['role'], url: string): RenderReference => ({ role, url, contentType: 'image/*', data: async () => Buffer.alloc(0) });
const spec = (extra: Partial<VideoTaskSpec> = {}): VideoTaskSpec => ({
  type: 'video', model: 'video-a-h3', prompt: '<Picture 1> waves at <Picture 2>, voice of <Audio 1>', duration: 5, ratio: '9:16', resolution: '768p',
  tier: null, variant: null, refMode: 'omni', effort: '1x', seed: null, optimizePrompt: false, media: [], firstFrame: null, lastFrame: null, ...extra,
});
const req = (s: VideoTaskSpec, references: RenderReference[] = [], outputSeconds: number | null = s.duration): RenderRequest => ({
  taskId: 'task-1', attemptId: 'att-1', spec: s, outputSeconds, references,
});

describe('request mapping (MiniMax-AI/cli src/video/v2.ts rules, 2026-11-27)', () => {
  it('sends the prompt and the references in <Picture N> / <Audio N> order with their roles, at 2K, without a seed', () => {
    const refs = [ref('reference_image', 'https://f/p1.png'), ref('reference_audio', 'https://f/a1.mp3'), ref('reference_image', 'https://f/p2.png')];
    expect(minimaxBody(req(spec({ seed: 7 }), refs), spec({ seed: 7 }), 'MiniMax-H3', channel())).toEqual({
      model: 'MiniMax-H3',
      content: [
        { type: 'text', text: '<Picture 1> waves at <Picture 2>, voice of <Audio 1>' },
        { type: 'image_url', image_url: { url: 'https://f/p1.png' }, role: 'reference_image' },
        { type: 'audio_url', audio_url: { url: 'https://f/a1.mp3' }, role: 'reference_audio' },
        { type: 'image_url', image_url: { url: 'https://f/p2.png' }, role: 'reference_image' },
      ],
      ratio: '9:16', resolution: '2K', duration: 5, aigc_watermark: false,
    });
  });

  it.each(['480p', '768p', '1080p'])('renders %s at 2K, the only resolution MiniMax-H3 takes (a larger video than sold)', (resolution) => {
    const s = spec({ resolution, effort: resolution === '1080p' ? null : '1x' });
    expect(minimaxBody(req(s), s, 'MiniMax-H3', channel())).toMatchObject({ resolution: '2K' });
    expect(adapter().unsupported!('video-a-h3', null)).toBeNull();
  });

  it('renders a task sold shorter than 4 s at 4 s, never shorter than sold', () => {
    for (const [sold, sent] of [[1, 4], [3, 4], [4, 4], [9.2, 10], [15, 15]] as const) {
      const s = spec({ duration: sold });
      expect(minimaxBody(req(s, [], sold), s, 'MiniMax-H3', channel()).duration).toBe(sent);
    }
  });

  it('sends lip-sync as a reference image with reference audio, with a text part when there is no prompt', () => {
    const s = spec({ refMode: 'lip-sync', prompt: null, duration: null, effort: '1x' });
    const body = minimaxBody(req(s, [ref('reference_image', 'https://f/face.png'), ref('reference_audio', 'https://f/voice.mp3')], 7.4), s, 'MiniMax-H3', channel());
    expect(body).toMatchObject({
      content: [
        { type: 'text', text: LIP_SYNC_TEXT },
        { role: 'reference_image', image_url: { url: 'https://f/face.png' } },
        { role: 'reference_audio', audio_url: { url: 'https://f/voice.mp3' } },
      ],
      duration: 8, ratio: '9:16',
    });
  });

  it('frames keep their roles and the ratio follows the frame (adaptive)', () => {
    const s = spec({ refMode: 'first-last' });
    const body = minimaxBody(req(s, [ref('first_frame', 'https://f/1.png'), ref('last_frame', 'https://f/2.png')]), s, 'MiniMax-H3', channel());
    expect(body.content).toEqual([
      { type: 'text', text: s.prompt },
      { type: 'image_url', image_url: { url: 'https://f/1.png' }, role: 'first_frame' },
      { type: 'image_url', image_url: { url: 'https://f/2.png' }, role: 'last_frame' },
    ]);
    expect(body.ratio).toBe('adaptive');
  });

  it('refuses before sending what MiniMax-H3 refuses: frames with references, audio alone, no text', () => {
    const okay = spec({ refMode: 'okay' });
    expect(() => minimaxBody(req(okay, [ref('first_frame', 'https://f/1.png'), ref('reference_image', 'https://f/p.png')]), okay, 'MiniMax-H3', channel()))
      .toThrow(expect.objectContaining({ kind: 'failed', message: expect.stringMatching(/frame inputs and reference inputs cannot be used together/) }));
    expect(() => minimaxBody(req(spec(), [ref('reference_audio', 'https://f/a.mp3')]), spec(), 'MiniMax-H3', channel()))
      .toThrow(expect.objectContaining({ kind: 'failed', message: expect.stringMatching(/reference audio requires at least one reference image or video/) }));
    expect(() => minimaxBody(req(spec({ prompt: '  ' })), spec({ prompt: '  ' }), 'MiniMax-H3', channel()))
      .toThrow(expect.objectContaining({ kind: 'failed', message: expect.stringMatching(/non-empty text/) }));
  });

  it('a refused request is never sent: the submit fails for the next channel', async () => {
    const okay = spec({ refMode: 'okay' });
    await expect(adapter().submit(req(okay, [ref('last_frame', 'https://f/1.png'), ref('reference_audio', 'https://f/a.mp3')]))).rejects.toMatchObject({ kind: 'failed' });
    expect(server.requests).toHaveLength(0);
  });

  it('names at config load what a channel cannot serve', () => {
    expect(minimaxUnsupported('video-a-h3', channel({ resolutions: { '768p': '2K', '1080p': '2K' } }))).toMatch(/480p/);
    expect(minimaxUnsupported('video-a-h3', channel({ durations: { min: 5, max: 10 } }))).toMatch(/up to 15 s at 480p; .*at most 10 s/);
    expect(minimaxUnsupported('video-a-h3', channel({ durations: { min: 5, max: 15 } }))).toBeNull();
    expect(minimaxUnsupported('video-a-h3', channel({ effortModels: { '2x': 'MiniMax-H3-Max' } }))).toMatch(/effort 1\.5x/);
    expect(minimaxUnsupported('video-b-2.0', channel())).toMatch(/video-a-h3 only/);
    expect(minimaxUnsupported('image-a-5.0', channel())).toMatch(/not an H3 model/);
  });
});

describe('MiniMax v2 task', () => {
  it('creates a task with the bearer key, using the effort model', async () => {
    server.on('POST', '/v2/video_generation', fx('create-response'));
    await expect(adapter().submit(req(spec({ effort: '2x' })))).resolves.toEqual({ upstreamId: '376583734915212' });
    expect(server.requests[0].headers.authorization).toBe('Bearer mm-key');
    expect(server.requests[0].body).toMatchObject({ model: 'MiniMax-H3-Max', resolution: '2K' });
    expect(server.requests[0].body).not.toHaveProperty('seed');
  });

  it.each([
    ['create-200-base-resp-1026-input-sensitive', 'violation', 'failed'],
    ['create-200-base-resp-1002-rate-limit', 'transient', 'transient'],
    ['create-200-base-resp-1008-insufficient-balance', 'failed', 'failed'],
    ['error-422-input-sensitive', 'violation', 'failed'],
    ['error-429-rate-limit', 'transient', 'transient'],
    ['error-400-invalid-params', 'failed', 'failed'],
    ['error-401-authentication', 'failed', 'failed'],
    ['error-500-internal', 'transient', 'transient'],
  ])('classifies a submit answered %s as %s (reporting) / %s (quiet)', async (name, reporting, quiet) => {
    server.on('POST', '/v2/video_generation', fx(name));
    await expect(adapter().submit(req(spec()))).rejects.toMatchObject({ kind: reporting });
    await expect(adapter({ reportsViolations: false }).submit(req(spec()))).rejects.toMatchObject({ kind: quiet });
  });

  it('honours Retry-After on a 429 when MiniMax sends one', async () => {
    server.on('POST', '/v2/video_generation', { ...fx('error-429-rate-limit'), headers: { 'retry-after': '4' } });
    await expect(adapter().submit(req(spec()))).rejects.toMatchObject({ kind: 'transient', retryAfterMs: 4000, httpStatus: 429 });
  });

  it.each([
    ['query-queued', { state: 'running', progress: 0 }],
    ['query-running', { state: 'running', progress: 50 }],
  ])('maps %s to running', async (name, expected) => {
    server.on('GET', '/v2/query/video_generation/t1', fx(name));
    await expect(adapter().poll('t1')).resolves.toEqual(expected);
  });

  it('returns the video link and the output seconds', async () => {
    server.on('GET', '/v2/query/video_generation/t1', fx('query-succeeded'));
    const url = (fx('query-succeeded').body as { task: { content: { url: string } } }).task.content.url;
    await expect(adapter().poll('t1')).resolves.toEqual({ state: 'succeeded', outputs: [{ kind: 'url', url, contentType: 'video/mp4' }], usage: { units: 'seconds', amount: 5 } });
  });

  it('prices the output seconds when the channel knows the model\'s price at that resolution', async () => {
    server.on('GET', '/v2/query/video_generation/t1', fx('query-succeeded'));
    const s = await adapter({ prices: { 'MiniMax-H3': { '768P': 19_000, '2K': 40_000 } } }).poll('t1');
    expect(s.state === 'succeeded' && s.usage).toEqual({ units: 'seconds', amount: 5, costMicroUsd: 200_000 });
  });

  it('retrieves the file of an answer that gives a file id (v1 shape)', async () => {
    server.on('GET', '/v2/query/video_generation/t1', fx('query-v1-success-with-file-id'));
    server.on('GET', '/v1/files/retrieve?file_id=205258526306433', fx('file-retrieve'));
    const s = await adapter().poll('t1');
    expect(s.state === 'succeeded' && s.outputs[0]).toMatchObject({ kind: 'url', url: expect.stringContaining('output.mp4') });
  });

  it.each([
    ['query-failed-output-sensitive', 'violation', 'failed'],
    ['query-failed-numeric-code', 'violation', 'failed'],
    ['query-failed-worded-code', 'violation', 'failed'],
    ['query-failed-render-error', 'failed', 'failed'],
    ['query-cancelled', 'failed', 'failed'],
    ['query-expired', 'failed', 'failed'],
  ])('maps %s to %s (reporting) / %s (quiet)', async (name, reporting, quiet) => {
    server.on('GET', '/v2/query/video_generation/t1', fx(name));
    const a = await adapter().poll('t1');
    const b = await adapter({ reportsViolations: false }).poll('t1');
    expect(a.state === 'failed' && a.error.kind).toBe(reporting);
    expect(b.state === 'failed' && b.error.kind).toBe(quiet);
  });

  it('reports success without a URL as no outputs (the worker settles it as no_result)', async () => {
    server.on('GET', '/v2/query/video_generation/t1', fx('query-succeeded-without-url'));
    await expect(adapter().poll('t1')).resolves.toEqual({ state: 'succeeded', outputs: [] });
  });

  it('reports an output refusal whose code is a string as a violation, not a failed render (the code is not NaN)', async () => {
    server.on('GET', '/v2/query/video_generation/t1', fx('query-failed-output-sensitive'));
    const s = await adapter().poll('t1');
    expect(s.state === 'failed' && s.error.message).toMatch(/flagged the content \(1027\)/);
  });

  it('reads an answer of a shape no client describes as a classified failure, never a success or a crash', async () => {
    server.on('GET', '/v2/query/video_generation/t1', fx('query-unknown-shape'));
    await expect(adapter().poll('t1')).rejects.toMatchObject({ name: 'UpstreamError', kind: 'transient', message: expect.stringMatching(/unexpected answer/) });
    server.on('POST', '/v2/video_generation', { status: 200, body: ['not', 'an', 'object'] });
    await expect(adapter().submit(req(spec()))).rejects.toMatchObject({ name: 'UpstreamError', kind: 'failed' });
  });

  it('a model the plan does not include (2061) is an unknown model for this channel', async () => {
    server.on('POST', '/v2/video_generation', fx('error-2061-model-not-on-plan'));
    await expect(adapter().submit(req(spec()))).rejects.toMatchObject({ kind: 'unknown_model', message: expect.stringMatching(/2061/) });
  });

  it('reads an error in an HTTP 200 query answer, and a forgotten task as lost', async () => {
    server.on('GET', '/v2/query/video_generation/t1', fx('query-200-base-resp-invalid-params'));
    await expect(adapter().poll('t1')).rejects.toMatchObject({ kind: 'failed', message: expect.stringMatching(/2013/) });
    server.on('GET', '/v2/query/video_generation/t2', fx('error-404-task-not-found'));
    await expect(adapter().poll('t2')).rejects.toMatchObject({ kind: 'lost' });
    server.on('GET', '/v2/query/video_generation/t3', fx('error-500-internal'));
    await expect(adapter().poll('t3')).rejects.toMatchObject({ kind: 'transient' });
  });

  it('cancels with DELETE when the channel allows; a refusal is reported, an unknown task is not', async () => {
    server.on('DELETE', '/v2/video_generation/t1', fx('delete-response'));
    await adapter().cancel!('t1');
    // The cancel is unverified (providers.md 5): an upstream without it, or a finished task, refuses,
    // and the render goes on; the worker then lets the task end on its own instead of refunding it.
    server.on('DELETE', '/v2/video_generation/t2', { status: 405, body: {} });
    await expect(adapter().cancel!('t2')).rejects.toMatchObject({ kind: 'failed', httpStatus: 405 });
    server.on('DELETE', '/v2/video_generation/t3', fx('error-404-task-not-found'));
    await expect(adapter().cancel!('t3')).resolves.toBeUndefined();
    expect(server.requests.map((r) => r.method)).toEqual(['DELETE', 'DELETE', 'DELETE']);
    const off = adapter({ cancel: false });
    expect(off.capabilities.cancel).toBe(false);
    expect(off.cancel).toBeUndefined();
  });
});
