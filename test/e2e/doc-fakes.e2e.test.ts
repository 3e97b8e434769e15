// The service as a new user runs it: a PROVIDER_CONFIG shaped like config/providers.example.json
// (real upstream model names, keys from the environment) pointing every protocol's channel at a fake
// written from the vendors' public documentation (test/e2e/support/doc-fakes, from
// /work/shared/notes/providers.md), not from our adapters or our simulator. Each task goes through
// the public HTTP API; the assertions are what a user sees (a completed task with a real file, the
// failure code) and what the vendor sees (the documented path, auth header and body fields).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Account, apiClient } from './support/api';
import type { Stack } from './support/stack';
import { e2eSuite } from './support/suite';
import { taskChecks } from './support/task-checks';
import { Fake, Seen, isMp4, isPng, pngBytes } from './support/doc-fakes/common';
import { ModelarkFake, modelarkFake } from './support/doc-fakes/modelark';
import { MinimaxFake, minimaxFake } from './support/doc-fakes/minimax';
import { geminiFake } from './support/doc-fakes/gemini';
import { FalFake, falFake } from './support/doc-fakes/fal';
import { ReplicateFake, replicateFake } from './support/doc-fakes/replicate';

jest.setTimeout(45_000);

const KEYS = { FAKE_ARK_KEY: 'ark-0d6c9e', FAKE_MINIMAX_KEY: 'eyJhbGciOi.minimax', FAKE_GEMINI_KEY: 'AIzaSyFake-gemini', FAKE_FAL_KEY: 'fal-id:fal-secret', FAKE_REPLICATE_TOKEN: 'r8_fake_token' };

const fakes = {
  modelark: modelarkFake(KEYS.FAKE_ARK_KEY) as ModelarkFake,
  minimax: minimaxFake(KEYS.FAKE_MINIMAX_KEY) as MinimaxFake,
  gemini: geminiFake(KEYS.FAKE_GEMINI_KEY),
  fal: falFake(KEYS.FAKE_FAL_KEY) as FalFake,
  replicate: replicateFake(KEYS.FAKE_REPLICATE_TOKEN) as ReplicateFake,
};

let stack: Stack;
let api: ReturnType<typeof apiClient>;
let account: Account;
let dir: string;

const poll = { firstMs: 100, minMs: 200, maxMs: 500 };

/** Which channel serves each model here, and whether it reports violations (as in the example config). */
function channels() {
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
      models: { 'video-c-3.1-fast': 'veo-3.1-fast-generate-preview', 'video-c-3.1-components': 'veo-3.1-generate-preview' } },
    // Veo's second channel: fal's queue, `fal-ai/veo3.1/fast` (an app path with a sub-path of its own).
    { id: 'fal-veo', protocol: 'fal', baseUrl: o('fal'), apiKey: '${FAKE_FAL_KEY}', costOrder: 20, poll,
      models: { 'video-c-3.1-fast': 'fal-ai/veo3.1/fast' }, webhookJwksUrl: o('fal', '/.well-known/jwks.json') },
    { id: 'gemini-veo-pro', protocol: 'gemini', baseUrl: o('gemini', '/v1beta'), apiKey: '${FAKE_GEMINI_KEY}', costOrder: 10, reportsViolations: true, poll,
      models: { 'video-c-3.1-pro': 'veo-3.1-generate-preview' } },
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
      models: { 'image-c-2.1': 'black-forest-labs/flux-schnell' }, preferWaitSeconds: 5 },
  ];
}

e2eSuite(
  'doc_fakes',
  {
    balanceCents: 10_000_000,
    maxConcurrentTasks: 100,
    stack: async () => {
      await Promise.all(Object.values(fakes).map((f) => f.start()));
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-doc-fakes-'));
      fs.writeFileSync(path.join(dir, 'channels.json'), JSON.stringify({ channels: channels() }, null, 2));
      return { env: { PROVIDER_CONFIG: path.join(dir, 'channels.json'), TASK_TIMEOUT_MS: '30000', RATE_LIMIT_PER_MINUTE: '100000', ...KEYS } };
    },
  },
  (s) => ({ stack, api, account } = s),
);
afterAll(async () => {
  if (process.env.DOC_FAKES_DUMP) fs.writeFileSync(process.env.DOC_FAKES_DUMP, JSON.stringify(Object.values(fakes).map((f) => ({ protocol: f.protocol, seen: f.seen.map((s) => ({ ...s, query: String(s.query) })) })), null, 1));
  await Promise.all(Object.values(fakes).map((f) => f.stop()));
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const { attemptsOf, ledgerOf } = taskChecks(() => ({ stack, api, account }));

let n = 0;
const unique = (text: string) => `${text} (${++n} ${Date.now()})`.trim();

interface Case {
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

const bodyOf = (s: Seen) => s.body as Record<string, any>;
const textParts = (s: Seen) => ((bodyOf(s).content ?? []) as { type: string; text?: string }[]).filter((p) => p.type === 'text').map((p) => p.text ?? '').join(' ');
const findSubmit = (fake: Fake, method: string, path: RegExp, prompt: (s: Seen) => string) => (p: string) =>
  fake.calls(method, path).filter((s) => prompt(s).includes(p)).at(-1);
const ratioOf = (size: string) => {
  const m = /^(\d+)x(\d+)$/.exec(size);
  return m ? Number(m[1]) / Number(m[2]) : NaN;
};

const CASES: Case[] = [
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
      expect(s.path).toBe('/v1beta/models/veo-3.1-fast-generate-preview:predictLongRunning');
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
    submitOf: findSubmit(fakes.replicate, 'POST', /^\/v1\/models\/black-forest-labs\/flux-schnell\/predictions$/, (s) => String(bodyOf(s).input?.prompt ?? '')),
    expectSubmit: (s, prompt) => {
      expect(s.headers.authorization).toBe(`Bearer ${KEYS.FAKE_REPLICATE_TOKEN}`);
      expect(bodyOf(s).input.prompt).toContain(prompt);
      expect(bodyOf(s).input).toMatchObject({ aspect_ratio: '2:3' });
    },
  },
];

const byChannel = (id: string) => CASES.find((c) => c.channel === id)!;
const VEO_PRO: Case = { ...byChannel('gemini-veo'), name: 'Gemini Veo pro', channel: 'gemini-veo-pro', reportsViolations: true, body: (prompt) => ({ model: 'video-c-3.1', variant: 'video-c-3.1-pro', prompt, ratio: '16:9' }) };
const FAL_IMAGE: Case = { ...byChannel('fal-seedance'), name: 'fal image app', kind: 'image', channel: 'fal-image', body: (prompt) => ({ model: 'image-b-2.5', prompt, ratio: '4:3' }) };

interface Outcome {
  status: 'completed' | 'failed';
  errorCode?: string;
}

/** Documented variants beyond the main path: [case, scenario words, what the user must see]. */
const VARIANTS: [Case, string, Outcome][] = [
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
const refUrl = () => (REF ||= fakes.fal.publish('/ref/frame.png', 'image/png', pngBytes(640, 360)));
const parts = (s: Seen) => (bodyOf(s).content ?? []) as Record<string, any>[];
/** The reference itself, a copy we host (a signed URL on our gateway), or its bytes inline. */
const isRef = (url: unknown) => typeof url === 'string' && (/^https?:\/\//.test(url) || url.startsWith('data:image/png;base64,'));

/** Requests with reference media: [case, request body, what the vendor must have seen]. */
const REFERENCES: [Case, (prompt: string) => Record<string, unknown>, (s: Seen) => void][] = [
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Submit and poll like a client with many tasks in flight: our own 429s are waited out. */
async function settle(c: Case, prompt: string) {
  let res = await api.submit(account, c.kind, c.body(prompt));
  for (let i = 0; res.status === 429 && i < 20; i++) {
    await sleep(1000 * Number(res.headers.get('retry-after') ?? 1));
    res = await api.submit(account, c.kind, c.body(prompt));
  }
  if (res.status !== 200) throw new Error(`submit: ${res.status} ${JSON.stringify(res.body)}`);
  const taskId = String(res.body.taskId);
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    const r = await api.poll(account, c.kind, taskId);
    if (r.status === 429) await sleep(1000 * Math.max(1, Number(r.headers.get('retry-after') ?? 1)));
    else if (r.status !== 200) throw new Error(`poll ${taskId}: ${r.status} ${JSON.stringify(r.body)}`);
    else if (r.body.status === 'completed' || r.body.status === 'failed') return { taskId, last: r.body };
    else await sleep(300);
  }
  throw new Error(`task ${taskId} not settled\n${stack.logs()}`);
}

/** Every scenario's task runs at once (the suite stays short); each test awaits its own. */
const runs = new Map<string, Promise<Awaited<ReturnType<typeof settle>> & { prompt: string }>>();
function run(key: string, c: Case, words: string) {
  if (!runs.has(key)) {
    const prompt = unique(`${words} a lighthouse in fog, "${c.channel}"`);
    const p = settle(c, prompt).then((r) => ({ ...r, prompt }));
    p.catch(() => undefined);
    runs.set(key, p);
  }
  return runs.get(key)!;
}
const once = (pick: (c: Case) => unknown) => CASES.filter((c, i) => CASES.findIndex((d) => pick(d) === pick(c)) === i);
const INPUT_CASES = once((c) => `${c.fake.protocol}/${c.kind}`);
const RATE_CASES = once((c) => c.fake);

/** Channels whose upstream documents a cancel: the call the vendor must see for a queued render. */
const CANCELS: [Case, RegExp][] = [
  [byChannel('minimax-h3'), /^DELETE \/v2\/video_generation\/[^/]+$/],
  [byChannel('ark-seedance'), /^DELETE \/api\/v3\/contents\/generations\/tasks\/cgt-[^/]+$/],
  [byChannel('fal-seedance'), /^PUT \/bytedance\/seedance-2\.5\/requests\/[^/]+\/cancel$/],
  [byChannel('replicate-seedance'), /^POST \/v1\/predictions\/[^/]+\/cancel$/],
];
const cancels = new Map<string, ReturnType<typeof cancelRun>>();

/** A slow render, cancelled by the client while the vendor still has it queued. */
async function cancelRun(c: Case, path: RegExp, words = '[fake:slow]', afterFinish = false) {
  const prompt = unique(`${words} a glacier, "${c.channel}"`);
  const res = await api.submit(account, c.kind, c.body(prompt));
  if (res.status !== 200) throw new Error(`submit: ${res.status} ${JSON.stringify(res.body)}`);
  const taskId = String(res.body.taskId);
  // Cancel once the vendor holds the render (still queued there: a slow render queues for 2 s).
  const held = () => [...c.fake.jobs.values()].find((j) => j.prompt.includes(prompt));
  const recorded = async () => held() && (await stack.db.taskAttempt.findFirst({ where: { taskId, upstreamId: { not: null } } }));
  for (let i = 0; i < 300 && !(await recorded()); i++) await sleep(50);
  if (!(await recorded())) throw new Error(`the render of ${prompt} never started upstream`);
  for (let i = 0; afterFinish && i < 100 && c.fake.phase(held()!) !== 'succeeded'; i++) await sleep(50);
  const answer = (await api.cancel(account, c.kind, taskId)).status;
  let last: Record<string, unknown> = {};
  for (let i = 0; i < 40; i++) {
    const r = await api.poll(account, c.kind, taskId);
    if (r.status === 200) last = r.body;
    if (last.status === 'completed' || last.status === 'failed') break;
    await sleep(300);
  }
  const job = held();
  const cancelCalls = () => c.fake.seen.filter((s) => job && s.path.includes(job.id) && path.test(`${s.method} ${s.path}`)).map((s) => `${s.method} ${s.status}`);
  for (let i = 0; i < 50 && cancelCalls().length === 0; i++) await sleep(100);
  const calls = cancelCalls();
  return { answer, last, calls, taskId };
}

beforeAll(() => {
  for (const c of CASES) run(`ok ${c.name}`, c, '');
  for (const c of CASES) run(`violation ${c.name}`, c, '[fake:violation]');
  for (const c of INPUT_CASES) run(`input ${c.name}`, c, '[fake:input-violation]');
  for (const c of RATE_CASES) run(`429 ${c.name}`, c, '[fake:429]');
  for (const [c, words] of VARIANTS) run(`variant ${c.name} ${words}`, c, words);
  for (const [c, path] of CANCELS) cancels.set(c.name, cancelRun(c, path));
  cancels.set('ark running', cancelRun(byChannel('ark-seedance'), CANCELS[1][1], '[fake:running]'));
  // fal-image polls once a minute: without its webhook the request completes upstream unnoticed.
  cancels.set('fal finished', cancelRun(FAL_IMAGE, /^PUT \/fal-ai\/nano-banana\/requests\/[^/]+\/cancel$/, '[fake:no-hook]', true));
  // One after another: the gateway reads at most 2 submits' reference files per account at once.
  void REFERENCES.reduce<Promise<unknown>>((prev, [c, body]) => prev.then(() => run(`refs ${c.name}`, { ...c, body }, 'with a reference')).catch(() => undefined), Promise.resolve());
});

async function expectFile(last: Record<string, unknown>, kind: 'video' | 'image') {
  const file = await api.fetchFile((last.resultUrls as string[])[0]);
  expect(file.status).toBe(200);
  expect(kind === 'video' ? isMp4(file.bytes) : isPng(file.bytes)).toBe(true);
}

describe('completes with a valid file, the vendor seeing the documented request', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const { taskId, last, prompt } = await run(`ok ${c.name}`, c, '');
    const seen = c.submitOf(prompt);
    expect(seen).toBeDefined();
    c.expectSubmit(seen!, prompt);
    expect(last).toMatchObject({ status: 'completed' });
    await expectFile(last, c.kind);
    expect(await attemptsOf(taskId)).toEqual([[c.channel, 'completed']]);
  });
});

describe('an output refused by moderation', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s: content_violation only where the channel reportsViolations', async (_name, c) => {
    const { taskId, last } = await run(`violation ${c.name}`, c, '[fake:violation]');
    expect(last).toMatchObject({ status: 'failed', errorCode: c.reportsViolations ? 'content_violation' : 'generation_failed' });
    // The first channel's verdict; a plain failure may go on to the model's next channel.
    expect((await attemptsOf(taskId))[0]).toEqual([c.channel, c.reportsViolations ? 'violation' : 'failed']);
  });
});

describe('an input refused by moderation at submit', () => {
  it.each(INPUT_CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const { last } = await run(`input ${c.name}`, c, '[fake:input-violation]');
    expect(last).toMatchObject({ status: 'failed', errorCode: c.reportsViolations ? 'content_violation' : 'generation_failed' });
  });
});

describe('a 429 on submit is retried on the same channel', () => {
  it.each(RATE_CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const { taskId, last, prompt } = await run(`429 ${c.name}`, c, '[fake:429]');
    expect(last).toMatchObject({ status: 'completed' });
    expect(await attemptsOf(taskId)).toEqual([[c.channel, 'completed']]);
    const submits = c.fake.seen.filter((s) => s.method === 'POST' && JSON.stringify(s.body ?? '').includes(JSON.stringify(prompt).slice(1, -1)));
    expect(submits.map((s) => s.status)).toEqual([429, c.fake === fakes.replicate ? 201 : 200]);
  });
});

describe('documented variants', () => {
  it.each(VARIANTS.map(([c, words, outcome]) => [`${c.name}: ${words}`, c, words, outcome] as const))('%s', async (_name, c, words, outcome) => {
    const { last, taskId, prompt } = await run(`variant ${c.name} ${words}`, c, words);
    expect(last).toMatchObject(outcome);
    if (outcome.status === 'completed') await expectFile(last, c.kind);
    if (words.includes('[fake:gemini-denied]')) {
      expect(await attemptsOf(taskId)).toEqual([['gemini-veo', 'failed'], ['fal-veo', 'completed']]);
      const job = [...fakes.fal.jobs.values()].find((j) => j.prompt.includes(prompt))!;
      expect(fakes.fal.seen.filter((s) => s.path.includes(job.id) || (s.method === 'POST' && JSON.stringify(s.body).includes(job.id))).map((s) => `${s.method} ${s.path.replace(job.id, '{id}')}`)).toContain('GET /fal-ai/veo3.1/requests/{id}/status');
      expect(fakes.fal.calls('POST', /^\/fal-ai\/veo3\.1\/fast$/).length).toBeGreaterThan(0);
    }
  });
});

describe('reference media in the documented fields', () => {
  it.each(REFERENCES.map(([c, body, check]) => [c.name, c, body, check] as const))('%s', async (_name, c, body, check) => {
    const { last, prompt } = await run(`refs ${c.name}`, { ...c, body }, 'with a reference');
    const seen = c.submitOf(prompt);
    expect(seen).toBeDefined();
    check(seen!);
    expect(last).toMatchObject({ status: 'completed' });
    await expectFile(last, c.kind);
  });
});

describe('a client cancel of a queued render', () => {
  it.each(CANCELS.map(([c]) => [c.name, c] as const))('%s: the documented cancel call, the task cancelled', async (_name, c) => {
    const { answer, last, calls } = await cancels.get(c.name)!;
    expect(answer).toBe(200);
    expect(last).toMatchObject({ status: 'failed', errorCode: 'cancelled' });
    expect(calls).toHaveLength(1);
    expect(Number(calls[0].split(' ')[1])).toBeLessThan(300);
  });
});

describe('a client cancel of a render the vendor already runs', () => {
  it.each([
    ['ModelArk refuses (only a queued task can be cancelled)', 'ark running', 'video', 'DELETE 400'],
    ['fal answers ALREADY_COMPLETED (the request finished unnoticed)', 'fal finished', 'image', 'PUT 400'],
  ] as const)('%s: the render is collected, not refunded', async (_name, key, kind, call) => {
    const { answer, last, calls, taskId } = await cancels.get(key)!;
    expect(calls).toEqual([call]);
    expect([202, 409]).toContain(answer);
    let final = last;
    for (let i = 0; i < 30 && final.status !== 'completed' && final.status !== 'failed'; i++) {
      await sleep(300);
      final = (await api.poll(account, kind, taskId)).body;
    }
    expect(final).toMatchObject({ status: 'completed' });
    await expectFile(final, kind);
    expect(await ledgerOf(taskId)).toEqual(['charge']);
  });
});

describe('callbacks', () => {
  beforeAll(() => Promise.allSettled([...runs.values(), ...cancels.values()]));

  it('ModelArk: every status post to the callback_url is answered 2xx', () => {
    expect(fakes.modelark.callbacks.length).toBeGreaterThan(0);
    expect(fakes.modelark.callbacks.filter((c) => c.answer < 200 || c.answer >= 300)).toEqual([]);
  });

  it('fal: the ED25519-signed webhooks are accepted', () => {
    expect(fakes.fal.webhooks.length).toBeGreaterThan(0);
    expect(fakes.fal.webhooks.filter((w) => w.answer < 200 || w.answer >= 300)).toEqual([]);
  });

  it('Replicate: the signed completed webhook is accepted', () => {
    expect(fakes.replicate.webhooks.length).toBeGreaterThan(0);
    expect(fakes.replicate.webhooks.filter((w) => w.status < 200 || w.status >= 300)).toEqual([]);
  });

  it('MiniMax: a callback_url, when sent, answers the challenge echo', () => {
    expect(fakes.minimax.challenges.filter((c) => !c.echoed)).toEqual([]);
  });
});
