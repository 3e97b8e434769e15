// The scenarios of test/e2e/doc-fakes.e2e.test.ts: the fakes (one per protocol), the channel file
// a new user would write for them (shaped like config/providers.example.json: real upstream model
// names, keys from the environment), and per channel the request a user sends with what the vendor
// must see of it, plus the documented variants, references and cancels the test runs.
import { Fake, Seen, pngBytes } from './common';
import { ModelarkFake, modelarkFake } from './modelark';
import { MinimaxFake, minimaxFake } from './minimax';
import { geminiFake } from './gemini';
import { FalFake, falFake } from './fal';
import { ReplicateFake, replicateFake } from './replicate';

export const KEYS = { FAKE_ARK_KEY: 'ark-0d6c9e', FAKE_MINIMAX_KEY: 'eyJhbGciOi.minimax', FAKE_GEMINI_KEY: 'AIzaSyFake-gemini', FAKE_FAL_KEY: 'fal-id:fal-secret', FAKE_REPLICATE_TOKEN: 'r8_fake_token' };

export const fakes = {
  modelark: modelarkFake(KEYS.FAKE_ARK_KEY) as ModelarkFake,
  minimax: minimaxFake(KEYS.FAKE_MINIMAX_KEY) as MinimaxFake,
  gemini: geminiFake(KEYS.FAKE_GEMINI_KEY),
  fal: falFake(KEYS.FAKE_FAL_KEY) as FalFake,
  replicate: replicateFake(KEYS.FAKE_REPLICATE_TOKEN) as ReplicateFake,
};

export const poll = { firstMs: 100, minMs: 200, maxMs: 500 };

/** Which channel serves each model here, and whether it reports violations (as in the example config). */
export function channels() {
  const o = (name: keyof typeof fakes, suffix = '') => `${fakes[name].origin}${suffix}`;
  return [
    { id: 'minimax-h3', protocol: 'minimax', baseUrl: o('minimax'), apiKey: '${FAKE_MINIMAX_KEY}', costOrder: 10, reportsViolations: true, poll,
      models: { 'video-a-h3': 'MiniMax-H3' }, effortModels: { '1.5x': 'MiniMax-H3-Max', '2x': 'MiniMax-H3-Max' },
      resolutions: { '480p': '480P', '768p': '768P', '1080p': '1080P' }, durations: { min: 1, max: 15 } },
    { id: 'ark-seedance', protocol: 'modelark', baseUrl: o('modelark', '/api/v3'), apiKey: '${FAKE_ARK_KEY}', tier: 'official', costOrder: 30, reportsViolations: true, poll,
      models: { 'video-b-2.0-mini': 'dreamina-seedance-2-0-mini-260615' } },
    { id: 'ark-seedream', protocol: 'modelark', baseUrl: o('modelark', '/api/v3'), apiKey: '${FAKE_ARK_KEY}', costOrder: 10, poll,
      models: { 'image-a-5.0': 'seedream-5-0-260128' } },
    { id: 'ark-seedream-b', protocol: 'modelark', baseUrl: o('modelark', '/api/v3'), apiKey: '${FAKE_ARK_KEY}', costOrder: 10, reportsViolations: true, poll,
      models: { 'image-b-2': 'seedream-4-0-250828' } },
    { id: 'gemini-veo', protocol: 'gemini', baseUrl: o('gemini', '/v1beta'), apiKey: '${FAKE_GEMINI_KEY}', costOrder: 10, poll,
      models: { 'video-c-3.1-fast': 'veo-3.1-fast-generate-001', 'video-c-3.1-components': 'veo-3.1-generate-001' } },
    // Veo's second channel: fal's queue, `fal-ai/veo3.1/fast` (an app path with a sub-path of its own).
    { id: 'fal-veo', protocol: 'fal', baseUrl: o('fal'), apiKey: '${FAKE_FAL_KEY}', costOrder: 20, poll,
      models: { 'video-c-3.1-fast': 'fal-ai/veo3.1/fast' }, webhookJwksUrl: o('fal', '/.well-known/jwks.json') },
    { id: 'gemini-veo-pro', protocol: 'gemini', baseUrl: o('gemini', '/v1beta'), apiKey: '${FAKE_GEMINI_KEY}', costOrder: 10, reportsViolations: true, poll,
      models: { 'video-c-3.1-pro': 'veo-3.1-generate-001' } },
    { id: 'gemini-image', protocol: 'gemini', baseUrl: o('gemini', '/v1beta'), apiKey: '${FAKE_GEMINI_KEY}', costOrder: 10, reportsViolations: true, poll,
      models: { 'image-d-2.5-flash-image': 'gemini-2.5-flash-image' } },
    { id: 'fal-seedance', protocol: 'fal', baseUrl: o('fal'), apiKey: '${FAKE_FAL_KEY}', tier: 'third-party', costOrder: 10, poll,
      models: { 'video-b-2.5': 'bytedance/seedance-2.5' }, webhookJwksUrl: o('fal', '/.well-known/jwks.json') },
    // Polls so rarely that only fal's signed webhook can finish its tasks in time.
    { id: 'fal-image', protocol: 'fal', baseUrl: o('fal'), apiKey: '${FAKE_FAL_KEY}', costOrder: 10, poll: { firstMs: 60_000, minMs: 60_000, maxMs: 60_000 },
      models: { 'image-b-2.5': 'fal-ai/nano-banana' }, webhookJwksUrl: o('fal', '/.well-known/jwks.json') },
    { id: 'replicate-seedance', protocol: 'replicate', baseUrl: o('replicate', '/v1'), apiKey: '${FAKE_REPLICATE_TOKEN}', tier: 'third-party', costOrder: 20, reportsViolations: true, poll,
      models: { 'video-b-2.0': 'bytedance/seedance-2.0' } },
    { id: 'replicate-image-c', protocol: 'replicate', baseUrl: o('replicate', '/v1'), apiKey: '${FAKE_REPLICATE_TOKEN}', costOrder: 10, poll,
      models: { 'image-c-2.1': 'black-forest-labs/flux-2-pro' }, preferWaitSeconds: 5 },
  ];
}

export interface Case {
  name: string;
  kind: 'video' | 'image';
  channel: string;
  fake: Fake;
  body: (prompt: string) => Record<string, unknown>;
  /** The fake's submit call for this prompt. */
  submitOf: (prompt: string) => Seen | undefined;
  /** The documented request shape of the submit. */
  expectSubmit: (seen: Seen, prompt: string) => void;
  reportsViolations: boolean;
}

export const bodyOf = (s: Seen) => s.body as Record<string, any>;
export const textParts = (s: Seen) => ((bodyOf(s).content ?? []) as { type: string; text?: string }[]).filter((p) => p.type === 'text').map((p) => p.text ?? '').join(' ');
export const findSubmit = (fake: Fake, method: string, path: RegExp, prompt: (s: Seen) => string) => (p: string) =>
  fake.calls(method, path).filter((s) => prompt(s).includes(p)).at(-1);
export const ratioOf = (size: string) => {
  const m = /^(\d+)x(\d+)$/.exec(size);
  return m ? Number(m[1]) / Number(m[2]) : NaN;
};

export const CASES: Case[] = [
  {
    name: 'MiniMax H3 video', kind: 'video', channel: 'minimax-h3', fake: fakes.minimax, reportsViolations: true,
    body: (prompt) => ({ model: 'video-a-h3', prompt, duration: 6, ratio: '16:9', resolution: '768p' }),
    submitOf: findSubmit(fakes.minimax, 'POST', /^\/v2\/video_generation$/, textParts),
    expectSubmit: (s, prompt) => {
      expect(s.headers.authorization).toBe(`Bearer ${KEYS.FAKE_MINIMAX_KEY}`);
      expect(bodyOf(s)).toMatchObject({ model: 'MiniMax-H3', resolution: '768P', duration: 6, ratio: '16:9' });
      expect(textParts(s)).toContain(prompt);
    },
  },
  {
    name: 'ModelArk Seedance video', kind: 'video', channel: 'ark-seedance', fake: fakes.modelark, reportsViolations: true,
    body: (prompt) => ({ model: 'video-b-2.0-mini', prompt, duration: 5, ratio: '9:16' }),
    submitOf: findSubmit(fakes.modelark, 'POST', /\/contents\/generations\/tasks$/, textParts),
    expectSubmit: (s, prompt) => {
      expect(s.path).toBe('/api/v3/contents/generations/tasks');
      expect(s.headers.authorization).toBe(`Bearer ${KEYS.FAKE_ARK_KEY}`);
      expect(bodyOf(s)).toMatchObject({ model: 'dreamina-seedance-2-0-mini-260615', ratio: '9:16', duration: 5, resolution: '720p' });
      expect(textParts(s)).toContain(prompt);
    },
  },
  {
    name: 'ModelArk Seedream image', kind: 'image', channel: 'ark-seedream', fake: fakes.modelark, reportsViolations: false,
    body: (prompt) => ({ model: 'image-a-5.0', prompt, ratio: '16:9', resolution: '2k' }),
    submitOf: findSubmit(fakes.modelark, 'POST', /\/images\/generations$/, (s) => String(bodyOf(s).prompt ?? '')),
    expectSubmit: (s, prompt) => {
      expect(s.path).toBe('/api/v3/images/generations');
      expect(s.headers.authorization).toBe(`Bearer ${KEYS.FAKE_ARK_KEY}`);
      expect(bodyOf(s)).toMatchObject({ model: 'seedream-5-0-260128' });
      expect(bodyOf(s).prompt).toContain(prompt);
      // "1K"/"2K"/"4K" let the model pick the shape: the ratio travels only as an explicit WxH.
      expect(ratioOf(String(bodyOf(s).size))).toBeCloseTo(16 / 9, 1);
    },
  },
  {
    name: 'ModelArk Seedream image (reports violations)', kind: 'image', channel: 'ark-seedream-b', fake: fakes.modelark, reportsViolations: true,
    body: (prompt) => ({ model: 'image-b-2', prompt, ratio: '1:1' }),
    submitOf: findSubmit(fakes.modelark, 'POST', /\/images\/generations$/, (s) => String(bodyOf(s).prompt ?? '')),
    expectSubmit: (s) => expect(bodyOf(s)).toMatchObject({ model: 'seedream-4-0-250828' }),
  },
  {
    name: 'Gemini Veo video', kind: 'video', channel: 'gemini-veo', fake: fakes.gemini, reportsViolations: false,
    body: (prompt) => ({ model: 'video-c-3.1', variant: 'video-c-3.1-fast', prompt, ratio: '9:16' }),
    submitOf: findSubmit(fakes.gemini, 'POST', /:predictLongRunning$/, (s) => String(bodyOf(s).instances?.[0]?.prompt ?? '')),
    expectSubmit: (s, prompt) => {
      expect(s.path).toBe('/v1beta/models/veo-3.1-fast-generate-001:predictLongRunning');
      expect(s.headers['x-goog-api-key']).toBe(KEYS.FAKE_GEMINI_KEY);
      expect(bodyOf(s).instances[0].prompt).toContain(prompt);
      expect(bodyOf(s).parameters).toMatchObject({ aspectRatio: '9:16' });
    },
  },
  {
    name: 'Gemini image', kind: 'image', channel: 'gemini-image', fake: fakes.gemini, reportsViolations: true,
    body: (prompt) => ({ model: 'image-d-2.5-flash-image', prompt, ratio: '3:2' }),
    submitOf: findSubmit(fakes.gemini, 'POST', /:generateContent$/, (s) => ((bodyOf(s).contents ?? []) as { parts?: { text?: string }[] }[]).flatMap((c) => c.parts ?? []).map((p) => p.text ?? '').join(' ')),
    expectSubmit: (s, prompt) => {
      expect(s.path).toBe('/v1beta/models/gemini-2.5-flash-image:generateContent');
      expect(s.headers['x-goog-api-key']).toBe(KEYS.FAKE_GEMINI_KEY);
      expect(bodyOf(s).generationConfig?.imageConfig).toMatchObject({ aspectRatio: '3:2' });
    },
  },
  {
    name: 'fal Seedance video', kind: 'video', channel: 'fal-seedance', fake: fakes.fal, reportsViolations: false,
    body: (prompt) => ({ model: 'video-b-2.5', tier: 'third-party', resolution: '480p', prompt, duration: 6, ratio: '1:1' }),
    submitOf: findSubmit(fakes.fal, 'POST', /^\/bytedance\//, (s) => String(bodyOf(s).prompt ?? '')),
    expectSubmit: (s, prompt) => {
      expect(s.path).toBe('/bytedance/seedance-2.5/text-to-video');
      expect(s.headers.authorization).toBe(`Key ${KEYS.FAKE_FAL_KEY}`);
      expect(bodyOf(s).prompt).toContain(prompt);
      expect(bodyOf(s)).toMatchObject({ aspect_ratio: '1:1', resolution: '480p' });
      expect(String(bodyOf(s).duration)).toBe('6');
    },
  },
  {
    name: 'Replicate Seedance video', kind: 'video', channel: 'replicate-seedance', fake: fakes.replicate, reportsViolations: true,
    body: (prompt) => ({ model: 'video-b-2.0', prompt, duration: 5, ratio: '16:9' }),
    submitOf: findSubmit(fakes.replicate, 'POST', /^\/v1\/models\/bytedance\/seedance-2\.0\/predictions$/, (s) => String(bodyOf(s).input?.prompt ?? '')),
    expectSubmit: (s, prompt) => {
      expect(s.headers.authorization).toBe(`Bearer ${KEYS.FAKE_REPLICATE_TOKEN}`);
      expect(bodyOf(s).input.prompt).toContain(prompt);
      expect(bodyOf(s).input).toMatchObject({ aspect_ratio: '16:9', duration: 5 });
    },
  },
  {
    name: 'Replicate image (list output)', kind: 'image', channel: 'replicate-image-c', fake: fakes.replicate, reportsViolations: false,
    body: (prompt) => ({ model: 'image-c-2.1', prompt, ratio: '2:3' }),
    submitOf: findSubmit(fakes.replicate, 'POST', /^\/v1\/models\/black-forest-labs\/flux-2-pro\/predictions$/, (s) => String(bodyOf(s).input?.prompt ?? '')),
    expectSubmit: (s, prompt) => {
      expect(s.headers.authorization).toBe(`Bearer ${KEYS.FAKE_REPLICATE_TOKEN}`);
      expect(bodyOf(s).input.prompt).toContain(prompt);
      expect(bodyOf(s).input).toMatchObject({ aspect_ratio: '2:3' });
    },
  },
];

export const byChannel = (id: string) => CASES.find((c) => c.channel === id)!;
export const VEO_PRO: Case = { ...byChannel('gemini-veo'), name: 'Gemini Veo pro', channel: 'gemini-veo-pro', reportsViolations: true, body: (prompt) => ({ model: 'video-c-3.1', variant: 'video-c-3.1-pro', prompt, ratio: '16:9' }) };
export const FAL_IMAGE: Case = { ...byChannel('fal-seedance'), name: 'fal image app', kind: 'image', channel: 'fal-image', body: (prompt) => ({ model: 'image-b-2.5', prompt, ratio: '4:3' }) };

export interface Outcome {
  status: 'completed' | 'failed';
  errorCode?: string;
}

/** Documented variants beyond the main path: [case, scenario words, what the user must see]. */
export const VARIANTS: [Case, string, Outcome][] = [
  [byChannel('gemini-veo'), '[fake:alt] generateVideoResponse.generatedVideos', { status: 'completed' }],
  [byChannel('gemini-veo'), '[fake:poll-429] RESOURCE_EXHAUSTED on the operation', { status: 'completed' }],
  [byChannel('gemini-veo'), '[fake:gemini-denied] 403 on Gemini, then fal-ai/veo3.1/fast', { status: 'completed' }],
  [VEO_PRO, '[fake:violation] raiMediaFilteredCount', { status: 'failed', errorCode: 'content_violation' }],
  [VEO_PRO, '[fake:op-error] an operation error quoting a support code', { status: 'failed', errorCode: 'content_violation' }],
  [byChannel('gemini-image'), '[fake:image-safety] finishReason IMAGE_SAFETY', { status: 'failed', errorCode: 'content_violation' }],
  [byChannel('gemini-image'), '[fake:text-only] a text part and no image', { status: 'failed' }],
  [byChannel('gemini-image'), '[fake:500] 503 UNAVAILABLE on submit', { status: 'completed' }],
  [byChannel('minimax-h3'), '[fake:alt] [fake:input-violation] HTTP 200 base_resp 1026', { status: 'failed', errorCode: 'content_violation' }],
  [byChannel('minimax-h3'), '[fake:alt] HTTP 200 base_resp 1002 then accepted', { status: 'completed' }],
  [byChannel('minimax-h3'), '[fake:expired] status expired', { status: 'failed', errorCode: 'generation_failed' }],
  [byChannel('minimax-h3'), '[fake:poll-429] 429 on the query', { status: 'completed' }],
  [byChannel('minimax-h3'), '[fake:500] 500 on submit', { status: 'completed' }],
  [byChannel('ark-seedance'), '[fake:expired] status expired', { status: 'failed', errorCode: 'generation_failed' }],
  [byChannel('ark-seedance'), '[fake:poll-429] ServerOverloaded on the query', { status: 'completed' }],
  [byChannel('ark-seedream'), '[fake:500] 500 on the image call', { status: 'completed' }],
  [byChannel('fal-seedance'), '[fake:runner-error] COMPLETED with a 500 result', { status: 'failed', errorCode: 'generation_failed' }],
  [byChannel('fal-seedance'), '[fake:no-media] COMPLETED with 422 no_media_generated', { status: 'failed', errorCode: 'no_result' }],
  [byChannel('fal-seedance'), '[fake:poll-429] 429 on the status', { status: 'completed' }],
  [byChannel('fal-seedance'), '[fake:500] 503 runner_scheduling_failure on submit', { status: 'completed' }],
  [FAL_IMAGE, 'an image app answering images[] (its channel waits for the signed webhook)', { status: 'completed' }],
  [byChannel('fal-seedance'), '[fake:alt] [fake:violation] status FAILED with an error field', { status: 'failed', errorCode: 'generation_failed' }],
  [byChannel('ark-seedream-b'), '[fake:alt] [fake:violation] HTTP 200, data [] and a top-level error', { status: 'failed', errorCode: 'content_violation' }],
  [byChannel('ark-seedance'), '[fake:octet] the file served as application/octet-stream', { status: 'completed' }],
  [byChannel('replicate-image-c'), '[fake:alt] output as one URL', { status: 'completed' }],
  [byChannel('replicate-seedance'), '[fake:alt] output as a list', { status: 'completed' }],
  [byChannel('replicate-seedance'), '[fake:expired] status aborted', { status: 'failed', errorCode: 'generation_failed' }],
  [byChannel('replicate-seedance'), '[fake:alt] [fake:429] "resets in ~1s"', { status: 'completed' }],
  [byChannel('replicate-seedance'), '[fake:poll-429] 429 on the prediction', { status: 'completed' }],
  [byChannel('replicate-image-c'), '[fake:500] 500 on create', { status: 'completed' }],
];

/** A reference image on a fake's host (tests allow http and loopback reference media). */
let REF = '';
export const refUrl = () => (REF ||= fakes.fal.publish('/ref/frame.png', 'image/png', pngBytes(640, 360)));
export const parts = (s: Seen) => (bodyOf(s).content ?? []) as Record<string, any>[];
/** The reference itself, a copy we host (a signed URL on our gateway), or its bytes inline. */
export const isRef = (url: unknown) => typeof url === 'string' && (/^https?:\/\//.test(url) || url.startsWith('data:image/png;base64,'));

/** Requests with reference media: [case, request body, what the vendor must have seen]. */
export const REFERENCES: [Case, (prompt: string) => Record<string, unknown>, (s: Seen) => void][] = [
  [byChannel('minimax-h3'), (prompt) => ({ model: 'video-a-h3', ref_mode: 'first-last', first_frame: refUrl(), prompt, duration: 6, ratio: '16:9', resolution: '768p' }),
    (s) => expect(parts(s).filter((p) => p.type === 'image_url').map((p) => [p.role, isRef(p.image_url.url)])).toEqual([['first_frame', true]])],
  [byChannel('ark-seedance'), (prompt) => ({ model: 'video-b-2.0-mini', prompt, media: [{ type: 'image', url: refUrl() }] }),
    (s) => expect(parts(s).filter((p) => p.type === 'image_url').map((p) => [p.role, isRef(p.image_url.url)])).toEqual([['reference_image', true]])],
  [byChannel('ark-seedream'), (prompt) => ({ model: 'image-a-5.0', prompt, images: [refUrl()] }),
    (s) => expect([bodyOf(s).image].flat().map(isRef)).toEqual([true])],
  [byChannel('gemini-veo'), (prompt) => ({ model: 'video-c-3.1', variant: 'video-c-3.1-components', prompt, media: [{ type: 'image', url: refUrl() }] }),
    (s) => {
      const refs = bodyOf(s).instances[0].referenceImages as Record<string, any>[];
      expect(refs.map((r) => [r.image.mimeType, typeof r.image.bytesBase64Encoded, String(r.referenceType).toLowerCase()])).toEqual([['image/png', 'string', 'asset']]);
    }],
  [byChannel('gemini-image'), (prompt) => ({ model: 'image-d-2.5-flash-image', prompt, images: [refUrl()] }),
    (s) => {
      const inline = (bodyOf(s).contents as { parts: Record<string, any>[] }[]).flatMap((c) => c.parts).map((p) => p.inlineData ?? p.inline_data).filter(Boolean);
      expect(inline.map((d) => d.mimeType ?? d.mime_type)).toEqual(['image/png']);
    }],
  [byChannel('fal-seedance'), (prompt) => ({ model: 'video-b-2.5', tier: 'third-party', resolution: '480p', prompt, media: [{ type: 'image', url: refUrl() }] }),
    (s) => {
      expect(s.path).toBe('/bytedance/seedance-2.5/reference-to-video');
      expect((bodyOf(s).image_urls as unknown[]).map(isRef)).toEqual([true]);
    }],
  [byChannel('replicate-seedance'), (prompt) => ({ model: 'video-b-2.0', prompt, media: [{ type: 'image', url: refUrl() }] }),
    (s) => expect((bodyOf(s).input.reference_images as unknown[]).map(isRef)).toEqual([true])],
];

/** Channels whose upstream documents a cancel: the call the vendor must see for a queued render. */
export const CANCELS: [Case, RegExp][] = [
  [byChannel('minimax-h3'), /^DELETE \/v2\/video_generation\/[^/]+$/],
  [byChannel('ark-seedance'), /^DELETE \/api\/v3\/contents\/generations\/tasks\/cgt-[^/]+$/],
  [byChannel('fal-seedance'), /^PUT \/bytedance\/seedance-2\.5\/requests\/[^/]+\/cancel$/],
  [byChannel('replicate-seedance'), /^POST \/v1\/predictions\/[^/]+\/cancel$/],
];
