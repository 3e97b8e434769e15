// The simulator's optimize_prompt model against the real optimizer client (packages/prompt-optimizer),
// in both protocols: the deterministic rewrite, and each #sim:optimizer directive ending in the
// fallback it stands for.
import type { AddressInfo } from 'node:net';
import { createPromptOptimizer, OptimizeInput, parseOptimizerConfig, parseStructuredPrompt } from '@mediagen/prompt-optimizer';
import { createSimServer } from '../src';

const sim = createSimServer({ channels: { channels: [] }, renderMs: 0, latencyMs: 0 });
let base = '';
beforeAll(async () => {
  await new Promise<void>((r) => sim.server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(sim.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  sim.server.closeAllConnections();
  await new Promise((r) => sim.server.close(r));
});

const PNG = Buffer.from('89504e470d0a1a0a', 'hex');
const input = (prompt: string): OptimizeInput => ({
  prompt, mode: 'omni', durationSeconds: 6, ratio: '9:16',
  pictures: [{ kind: 'image', url: 'https://cdn.example.com/a.png', mimeType: 'image/png' }, { kind: 'image', url: 'https://cdn.example.com/b.png', mimeType: 'image/png' }],
  audios: [{ kind: 'audio', url: 'https://cdn.example.com/v.mp3', mimeType: 'audio/mpeg' }],
});
const optimizers = () => ({
  'openai-chat': createPromptOptimizer(parseOptimizerConfig({ protocol: 'openai-chat', baseUrl: `${base}/optimizer/openai/v1`, model: 'm', media: 'inline', audio: true, timeoutMs: 500 }), { loadBytes: async () => PNG }),
  gemini: createPromptOptimizer(parseOptimizerConfig({ protocol: 'gemini', baseUrl: `${base}/optimizer/gemini/v1beta`, apiKey: 'k', model: 'gemini-2.5-flash', timeoutMs: 500 }), { loadBytes: async () => PNG }),
});

describe.each(['openai-chat', 'gemini'] as const)('%s', (protocol) => {
  const optimizer = () => optimizers()[protocol];

  it('rewrites deterministically: every reference described, two shots over the duration, the directives kept', async () => {
    const out = await optimizer().optimize(input('a dancer <Picture 1> on a roof <Picture 2> #sim:delay=300'), AbortSignal.timeout(5_000));
    expect(out.optimized).toBe(true);
    const p = parseStructuredPrompt(out.prompt)!;
    expect(p.subjects.map((s) => s.label)).toEqual(['<Picture 1>', '<Picture 2>', '<Audio 1>']);
    expect(p.shots.map((s) => [s.start, s.end])).toEqual([[0, 3], [3, 6]]);
    expect(p.shots[0].description).toContain('#sim:delay=300');
    expect(p.sound.voice).toContain('<Audio 1>');
    const again = await optimizer().optimize(input('a dancer <Picture 1> on a roof <Picture 2> #sim:delay=300'), AbortSignal.timeout(5_000));
    expect(again.prompt).toBe(out.prompt);
  });

  it.each([
    ['fail', 'error'],
    ['refuse', 'refused'],
    ['malformed', 'unparsable'],
    ['invent', 'invalid'],
    ['slow', 'timeout'],
  ])('#sim:optimizer=%s falls back (%s)', async (directive, reason) => {
    const prompt = `a dancer <Picture 1> #sim:optimizer=${directive}`;
    const out = await optimizer().optimize(input(prompt), AbortSignal.timeout(500));
    expect(out).toMatchObject({ optimized: false, reason, prompt });
  });
});

it('counts the calls it answered per protocol', async () => {
  const res = await fetch(`${base}/stats/optimizer`);
  expect(await res.json()).toEqual({ openai: expect.any(Number), gemini: expect.any(Number) });
  expect(sim.optimizer.calls.openai).toBeGreaterThan(0);
  expect(sim.optimizer.calls.gemini).toBeGreaterThan(0);
});
