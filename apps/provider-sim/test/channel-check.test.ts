// The channel check (packages/channel-check) against the simulator, which answers each protocol's
// probe the way the real upstream does: the model lookups (Gemini, Replicate, fal's platform API),
// the empty create (ModelArk, MiniMax), a retired model (SimOptions.retiredModels), a key it does not
// know; plus an address where nothing listens and an upstream that never answers (the timeout).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TaskSpec } from '@mediagen/catalog';
import { checkTargets, formatLines, isProblem, planRender, renderOnce, runChannelChecks, summary } from '@mediagen/channel-check';
import { ChannelAdapter, createAdapters, parseChannelConfig } from '@mediagen/providers';
import { createSimServer } from '../src/sim-server';

const RETIRED = ['veo-3.1-fast-generate-001', 'seedream-4-0-250828', 'MiniMax-H3-Max', 'fal-ai/veo3.1/fast', 'black-forest-labs/flux-1.1-pro'];

const channels = (sim: string, key = (id: string) => `key-${id}`) => [
  { id: 'gem', protocol: 'gemini', baseUrl: `${sim}/gemini/v1beta`, apiKey: key('gem'), costOrder: 1,
    models: { 'video-c-3.1-fast': 'veo-3.1-fast-generate-001', 'image-d-2.5-flash-image': 'gemini-2.5-flash-image' } },
  { id: 'ark', protocol: 'modelark', baseUrl: `${sim}/modelark/api/v3`, apiKey: key('ark'), costOrder: 1,
    models: { 'video-b-2.0': 'dreamina-seedance-2-0-260128', 'image-b-2': 'seedream-4-0-250828' } },
  { id: 'mm', protocol: 'minimax', baseUrl: `${sim}/minimax`, apiKey: key('mm'), costOrder: 1, models: { 'video-a-h3': 'MiniMax-H3' }, effortModels: { '2x': 'MiniMax-H3-Max' } },
  { id: 'fal', protocol: 'fal', baseUrl: `${sim}/fal`, platformUrl: `${sim}/fal/platform/v1`, apiKey: key('fal'), costOrder: 1,
    models: { 'video-c-3.1-fast': 'fal-ai/veo3.1/fast', 'video-b-2.0': 'bytedance/seedance-2.0' } },
  { id: 'rep', protocol: 'replicate', baseUrl: `${sim}/replicate/v1`, apiKey: key('rep'), costOrder: 1,
    models: { 'image-c-2.1': 'black-forest-labs/flux-1.1-pro', 'video-b-2.0': 'bytedance/seedance-2.0' } },
];

async function startSim(retiredModels: string[] = []) {
  const sim = createSimServer({ channels: parseChannelConfig({ channels: channels('http://127.0.0.1:1') }), renderMs: 50, latencyMs: 0, retiredModels });
  await new Promise<void>((r) => sim.server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(sim.server.address() as AddressInfo).port}`;
  return { sim, base, stop: () => new Promise<void>((r) => { sim.server.closeAllConnections(); sim.server.close(() => r()); }) };
}

async function check(list: unknown[], timeoutMs = 5_000) {
  const config = parseChannelConfig({ channels: list }, {});
  const adapters = createAdapters(config);
  try {
    return { config, adapters, results: await runChannelChecks(config, adapters, { timeoutMs }) };
  } finally {
    for (const a of adapters.values()) a.close();
  }
}

const verdicts = (results: { channel: string; upstreamModel: string; verdict: string }[]) => results.map((r) => `${r.channel} ${r.upstreamModel} ${r.verdict}`);

describe('against the simulator', () => {
  let s: Awaited<ReturnType<typeof startSim>>;
  beforeAll(async () => (s = await startSim()));
  afterAll(() => s.stop());

  it('every channel and upstream model is ok, one line each with its time, and nothing renders', async () => {
    const { config, results } = await check(channels(s.base));
    expect(results.map((r) => `${r.channel} ${r.upstreamModel}`)).toEqual(checkTargets(config).map((t) => `${t.channel.id} ${t.upstreamModel}`));
    expect(results.filter(isProblem)).toEqual([]);
    expect(results).toHaveLength(10);
    expect(summary(results)).toBe('all 10 checks ok');
    const lines = formatLines(results);
    expect(lines.find((l) => l.startsWith('mm  ') && l.includes('MiniMax-H3-Max'))).toMatch(/^mm\s+MiniMax-H3-Max\s+ok\s+\d+ ms\s+video-a-h3 effort 2x$/);
    expect(s.sim.store.totals.submits).toBe(0);
  });

  it('a key the upstream does not accept is a bad key', async () => {
    const { results } = await check(channels(s.base, (id) => `wrong-${id}`));
    expect(new Set(results.map((r) => r.verdict))).toEqual(new Set(['bad_key']));
  });

  it('an address where nothing answers is unreachable, and an upstream that hangs is cut by the timeout', async () => {
    const hang = http.createServer(() => undefined);
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
    const hangBase = `http://127.0.0.1:${(hang.address() as AddressInfo).port}`;
    try {
      const start = Date.now();
      const { results } = await check([channels('http://127.0.0.1:9')[0], { ...channels(hangBase)[1], id: 'ark-hang' }], 300);
      expect(results.map((r) => [r.channel, r.verdict])).toEqual([['gem', 'unreachable'], ['gem', 'unreachable'], ['ark-hang', 'unreachable'], ['ark-hang', 'unreachable']]);
      expect(results.find((r) => r.channel === 'ark-hang')!.detail).toMatch(/300 ms|deadline/);
      expect(Date.now() - start).toBeLessThan(5_000);
    } finally {
      hang.closeAllConnections();
      await new Promise((r) => hang.close(r));
    }
  });
});

describe('a simulator where some upstream models are retired', () => {
  let s: Awaited<ReturnType<typeof startSim>>;
  let adapters: Map<string, ChannelAdapter>;
  beforeAll(async () => {
    s = await startSim(RETIRED);
    adapters = createAdapters(parseChannelConfig({ channels: channels(s.base) }, {}));
  });
  afterAll(async () => {
    for (const a of adapters.values()) a.close();
    await s.stop();
  });

  it('the check names each retired model, per protocol, and passes the others', async () => {
    const { results } = await check(channels(s.base));
    expect(verdicts(results.filter(isProblem))).toEqual([
      'gem veo-3.1-fast-generate-001 unknown_model',
      'ark seedream-4-0-250828 unknown_model',
      'mm MiniMax-H3-Max unknown_model',
      'fal fal-ai/veo3.1/fast unknown_model',
      'rep black-forest-labs/flux-1.1-pro unknown_model',
    ]);
    expect(summary(results)).toMatch(/^5 of 10 checks need attention: gem veo-3.1-fast-generate-001 \(unknown model\)/);
  });

  const spec = (model: string, variant: string | null, type: 'video' | 'image', extra: Record<string, unknown> = {}): TaskSpec =>
    (type === 'image'
      ? { type, model, prompt: 'a boat', ratio: '1:1', resolution: null, images: [] }
      : { type, model, prompt: 'a boat', duration: 5, ratio: '16:9', resolution: '720p', tier: null, variant, refMode: null, effort: null, seed: null,
          optimizePrompt: null, media: [], firstFrame: null, lastFrame: null, ...extra }) as TaskSpec;

  it.each([
    ['gem', spec('video-c-3.1', 'video-c-3.1-fast', 'video', { resolution: null, duration: null })],
    ['ark', spec('image-b-2', null, 'image')],
    ['mm', spec('video-a-h3', null, 'video', { resolution: '768p', effort: '2x' })],
    ['fal', spec('video-c-3.1', 'video-c-3.1-fast', 'video', { resolution: null, duration: null })],
    ['rep', spec('image-c-2.1', null, 'image')],
  ])('a render of a retired model on %s is refused as the real upstream does: unknown_model', async (channel, s1) => {
    const a = adapters.get(channel)!;
    const err = await a.submit({ taskId: 't', attemptId: `a-${channel}`, spec: s1, outputSeconds: null, references: [] }).then(() => null, (e: unknown) => e);
    expect(a.classifyError(err, 'submit').kind).toBe('unknown_model');
  });
});

describe('--render', () => {
  let s: Awaited<ReturnType<typeof startSim>>;
  beforeAll(async () => (s = await startSim()));
  afterAll(() => s.stop());

  it('prices the smallest render of a model first, then renders it to the end', async () => {
    const config = parseChannelConfig({ channels: channels(s.base) }, {});
    const adapters = createAdapters(config);
    try {
      const target = checkTargets(config).find((t) => t.channel.id === 'mm' && t.upstreamModel === 'MiniMax-H3')!;
      const plan = planRender(target)!;
      expect(plan).toMatchObject({ spec: { model: 'video-a-h3', duration: 1 }, upstreamPrice: null });
      expect(plan.catalogCents).toBeGreaterThan(0);
      const status = await renderOnce(adapters.get('mm')!, plan, 20_000, 50);
      expect(status.state).toBe('succeeded');
      expect(s.sim.store.totals.submits).toBe(1);
    } finally {
      for (const a of adapters.values()) a.close();
    }
  });
});
