// config/providers.example.json against the simulator: every enabled channel, every model (tier,
// variant) it maps, sent by the real adapters to the simulator, which refuses what each real
// upstream refuses (MiniMax-H3's 2K-only and frame/reference rules, Seedream's sizes per version,
// Replicate's input names per model, Gemini's shut-down ids). A mapping or request shape in the
// example that the real service would refuse fails here, not in an operator's first hour.
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { getModel, MODELS, type ImageTaskSpec, type TaskSpec, type VideoTaskSpec } from '@mediagen/catalog';
import { createAdapters, loadChannelConfigFile, parseChannelConfig, type ChannelAdapter, type RenderStatus } from '@mediagen/providers';
import { createSimServer } from '../src/sim-server';
import { eventually } from '../../../test/e2e/support/wait';

const EXAMPLE = path.resolve(__dirname, '../../../config/providers.example.json');
const env = { MINIMAX_API_KEY: 'mm', FAL_KEY: 'fal', REPLICATE_API_TOKEN: 'r8', REPLICATE_WEBHOOK_SECRET: 'whsec_cmVwbGljYXRlLXdlYmhvb2stc2VjcmV0', ARK_API_KEY: 'ark', GEMINI_API_KEY: 'gem' };
const MOUNT: Record<string, string> = { modelark: 'modelark/api/v3', minimax: 'minimax', gemini: 'gemini/v1beta', fal: 'fal', replicate: 'replicate/v1' };

/** The example, each channel pointed at the simulator under its own key (the simulator tells channels apart by key). */
function exampleOnSim(sim: string) {
  const example = loadChannelConfigFile(EXAMPLE, env, { allowPrivate: false });
  return parseChannelConfig({
    channels: example.channels.map((c) => ({
      ...c, apiKey: `${c.id}-key`, baseUrl: `${sim}/${MOUNT[c.protocol]}`,
      ...(c.protocol === 'fal' ? { webhookJwksUrl: `${sim}/fal/.well-known/jwks.json` } : {}),
    })),
  }, {}, 'example on the simulator', { allowPrivate: true });
}

let base = '';
let stop: () => Promise<void>;
let adapters: Map<string, ChannelAdapter>;
beforeAll(async () => {
  const sim = createSimServer({ channels: exampleOnSim('http://127.0.0.1:1'), renderMs: 30, latencyMs: 0 });
  await new Promise<void>((r) => sim.server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(sim.server.address() as AddressInfo).port}`;
  adapters = createAdapters(exampleOnSim(base));
  stop = () => new Promise((r) => { sim.server.closeAllConnections(); sim.server.close(() => r()); });
});
afterAll(async () => {
  for (const a of adapters.values()) a.close();
  await stop();
});

let n = 0;
function specsFor(model: string, variant: string | null): TaskSpec[] {
  const info = getModel(model)!;
  const prompt = `a lighthouse at dusk #${++n}-${Date.now()}`;
  if (info.type === 'image') {
    // Every resolution sold: Seedream refuses sizes outside each version's range.
    return (info.resolutions.length ? info.resolutions : [null]).map((resolution): ImageTaskSpec => ({ type: 'image', model, prompt: `${prompt} ${resolution}`, ratio: info.ratios[0], resolution, images: [] }));
  }
  const base: VideoTaskSpec = {
    type: 'video', model, prompt, duration: null, ratio: info.ratios[0], resolution: null, tier: null, variant, refMode: null, effort: null,
    seed: null, optimizePrompt: null, media: [], firstFrame: null, lastFrame: null,
  };
  if (info.family === 'video-a')
    // The shortest duration sold and every resolution: MiniMax-H3 renders 2K and 4-15 s only.
    return info.resolutions.map((resolution) => ({ ...base, prompt: `${prompt} ${resolution}`, resolution, duration: 1, refMode: 'omni', effort: resolution === '1080p' ? null : '1x' }));
  if (info.family === 'video-b') {
    const offer = info.offers![0];
    return [{ ...base, resolution: offer.resolution, tier: offer.tier, duration: offer.duration.min }];
  }
  return [base];
}

/** Polls the render until it is no longer running (the simulator's render time, then the answer). */
const untilDone = (a: ChannelAdapter, id: string): Promise<RenderStatus> =>
  eventually(`render ${id} finished`, async () => {
    const s = await a.poll(id);
    return s.state !== 'running' && s;
  });

it('every enabled channel renders every model it maps, as the simulator (speaking each real upstream\'s rules) accepts it', async () => {
  const rendered: string[] = [];
  for (const channel of exampleOnSim(base).channels.filter((c) => c.enabled)) {
    const adapter = adapters.get(channel.id)!;
    for (const key of Object.keys(channel.models)) {
      const variant = getModel(key) ? null : key;
      const model = variant ? Object.values(MODELS).find((m) => m.type === 'video' && m.variants?.some((v) => v.id === variant))!.id : key;
      for (const spec of specsFor(model, variant)) {
        const what = `${channel.id} ${key} ${spec.type === 'image' ? spec.resolution ?? '' : (spec as VideoTaskSpec).resolution ?? ''}`;
        const outputSeconds = spec.type === 'video' ? spec.duration : null;
        const sent = await adapter.submit({ taskId: `t${n}`, attemptId: `a${++n}`, spec, outputSeconds, references: [] }).catch((e: Error) => {
          throw new Error(`${what}: ${e.message}`);
        });
        const status = sent.status ?? (await untilDone(adapter, sent.upstreamId));
        expect({ what, state: status.state, outputs: status.state === 'succeeded' ? status.outputs.length : 0 }).toEqual({ what, state: 'succeeded', outputs: 1 });
        rendered.push(what);
      }
    }
  }
  // Every protocol of the example took part (gemini through its image channel; its Veo channel is off).
  expect(new Set(rendered.map((w) => exampleOnSim(base).channels.find((c) => c.id === w.split(' ')[0])!.protocol))).toEqual(new Set(['modelark', 'minimax', 'gemini', 'fal', 'replicate']));
});
