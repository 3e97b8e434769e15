// End to end through the simulator and the real adapters: the upstream's usage
// (ModelArk tokens, MiniMax output seconds, Replicate predict time) is recorded on the attempt with
// its cost from the channel's prices, and the worker's /metrics text answers "do I make money on
// this model": revenue, upstream cost and margin per model.
import { createTaskWithCharge, newId } from '@mediagen/db';
import { enqueueTask } from '@mediagen/queue';
import { InProcess, startInProcess } from './in-process';

jest.setTimeout(40_000);

let w: InProcess;
beforeAll(async () => {
  const poll = { firstMs: 50, minMs: 50, maxMs: 200 };
  w = await startInProcess(
    (base) => ({
      channels: [
        { id: 'ark', protocol: 'modelark', baseUrl: `${base}/modelark/api/v3`, apiKey: 'ark-k', tier: 'third-party', costOrder: 1, poll,
          models: { 'video-b-2.0': 'dreamina-seedance-2-0-260128' }, prices: { 'dreamina-seedance-2-0-260128': { microUsdPerMillionTokens: 2_500_000 } } },
        { id: 'mm', protocol: 'minimax', baseUrl: `${base}/minimax`, apiKey: 'mm-k', costOrder: 1, poll, effortModels: { '1.5x': 'MiniMax-H3', '2x': 'MiniMax-H3' },
          models: { 'video-a-h3': 'MiniMax-H3' }, prices: { 'MiniMax-H3': { '2K': 30_000 } } },
        { id: 'rep', protocol: 'replicate', baseUrl: `${base}/replicate/v1`, apiKey: 'rep-k', costOrder: 1, poll,
          models: { 'video-c-3.1-fast': 'google/veo-3.1' }, prices: { 'google/veo-3.1': { microUsdPerOutput: 50_000 } } },
        // fal and Gemini report usage, never money: the channel's prices make it a cost.
        { id: 'fal', protocol: 'fal', baseUrl: `${base}/fal`, apiKey: 'fal-k', costOrder: 1, poll, webhookJwksUrl: `${base}/fal/.well-known/jwks.json`,
          models: { 'video-c-3.1-pro': 'fal-ai/veo3.1' }, prices: { 'fal-ai/veo3.1': { microUsdPerOutputSecond: 40_000 } } },
        { id: 'gem', protocol: 'gemini', baseUrl: `${base}/gemini/v1beta`, apiKey: 'gem-k', costOrder: 1, poll,
          models: { 'image-d-2.5-flash-image': 'gemini-2.5-flash-image' }, prices: { 'gemini-2.5-flash-image': { microUsdPerMillionOutputTokens: 30_000_000 } } },
      ],
    }),
    { ALLOW_PRIVATE_MEDIA_URLS: 'true' },
  );
});
afterAll(async () => {
  await w?.stop();
});

async function run(model: string, extra: Record<string, unknown>): Promise<string> {
  const taskId = newId();
  const image = model.startsWith('image-');
  const spec = image
    ? { type: 'image', model, prompt: `a tide pool ${taskId}`, ratio: '1:1', resolution: null, images: [], ...extra }
    : { type: 'video', model, prompt: `a tide pool ${taskId}`, duration: 2, ratio: '16:9', resolution: null, tier: null, variant: null, refMode: null,
        effort: null, seed: null, optimizePrompt: null, media: [], firstFrame: null, lastFrame: null, outputSeconds: 2, ...extra };
  await createTaskWithCharge(w.db, { taskId, accountId: w.accountId, type: image ? 'image' : 'video', model, params: spec, costCents: 20, costMicros: 200_000n,
    billedSeconds: image ? null : 2, deadlineAt: new Date(Date.now() + 60_000) });
  await enqueueTask(w.queue, taskId);
  expect(await w.settled(taskId, 30_000)).toMatchObject({ status: 'completed' });
  return taskId;
}

it('records each attempt\'s upstream usage and cost, and exposes revenue, cost and margin per model on /metrics', async () => {
  const ark = await run('video-b-2.0', { tier: 'third-party', resolution: '720p', duration: 4, outputSeconds: 4 });
  const mm = await run('video-a-h3', { resolution: '480p', refMode: null, effort: '1x' });
  const rep = await run('video-c-3.1', { variant: 'video-c-3.1-fast', duration: null, outputSeconds: null });
  const [a] = await w.closedAttempts(ark);
  const [m] = await w.closedAttempts(mm);
  const [r] = await w.closedAttempts(rep);
  // Seedance bills tokens ~ width x height x 24 fps x seconds / 1024: 1280 x 720 x 24 x 4 / 1024 = 86,400 at 2.50 USD per million.
  expect(a).toMatchObject({ channelId: 'ark', usageUnits: 'tokens', usageAmount: 86_400, upstreamCostMicros: 216_000n });
  // MiniMax-H3 renders 2K and at least 4 s: the 2 s 480p task is rendered (and billed upstream) as 4 s at 2K.
  expect(m).toMatchObject({ channelId: 'mm', usageUnits: 'seconds', usageAmount: 4, upstreamCostMicros: 120_000n });
  expect(r).toMatchObject({ channelId: 'rep', usageUnits: 'predict_seconds', upstreamCostMicros: 50_000n });

  const text = await w.app.ctx.metrics.registry.metrics();
  const value = (name: string, labels: string) => Number(new RegExp(`^${name}\\{${labels}[^}]*\\} (-?[\\d.e+]+)$`, 'm').exec(text)?.[1]);
  // Each task was charged 20 cents = 200,000 micro-USD.
  expect(value('mediagen_model_revenue_micro_usd_total', 'model="video-b-2.0"')).toBe(200_000);
  expect(value('mediagen_model_upstream_cost_micro_usd_total', 'model="video-b-2.0",channel="ark"')).toBe(216_000);
  expect(value('mediagen_model_margin_micro_usd', 'model="video-b-2.0"')).toBe(-16_000); // sold at a loss
  expect(value('mediagen_model_margin_micro_usd', 'model="video-a-h3"')).toBe(80_000);
  expect(value('mediagen_model_margin_micro_usd', 'model="video-c-3.1"')).toBe(150_000);
  expect(value('mediagen_upstream_usage_total', 'channel="ark",units="tokens"')).toBe(86_400);
});

it('prices fal\'s and Gemini\'s reported usage: a fal Veo render by the seconds rendered, a Gemini image by its output tokens', async () => {
  const veo = await run('video-c-3.1', { variant: 'video-c-3.1-pro', duration: 8, outputSeconds: 8 });
  const img = await run('image-d-2.5-flash-image', {});
  const [f] = await w.closedAttempts(veo);
  const [g] = await w.closedAttempts(img);
  // 8 s x 40,000; the simulator reports the render's run time as fal's inference_time.
  expect(f).toMatchObject({ channelId: 'fal', usageUnits: 'inference_seconds', upstreamCostMicros: 320_000n });
  // The simulator answers 1,290 output tokens (of 1,302): 1,290 x 30 micro-USD.
  expect(g).toMatchObject({ channelId: 'gem', usageUnits: 'tokens', usageAmount: 1302, upstreamCostMicros: 38_700n });
  const text = await w.app.ctx.metrics.registry.metrics();
  const value = (name: string, labels: string) => Number(new RegExp(`^${name}\\{${labels}[^}]*\\} (-?[\\d.e+]+)$`, 'm').exec(text)?.[1]);
  expect(value('mediagen_model_upstream_cost_micro_usd_total', 'model="image-d-2.5-flash-image",channel="gem"')).toBe(38_700);
  expect(value('mediagen_model_margin_micro_usd', 'model="image-d-2.5-flash-image"')).toBe(161_300);
});
