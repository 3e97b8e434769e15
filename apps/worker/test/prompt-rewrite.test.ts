// optimize_prompt end to end through the worker, the simulator's optimizer (both protocols) and the
// real MiniMax adapter: the rewrite is decided once before the first submit and every attempt sends
// it; every failure (slow, failing, refusing, malformed or inventing optimizer, a prompt naming
// <Picture 9> with two images, a prompt of the maximum length) sends the prompt as written and the
// task completes, charged once, never more.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createTaskWithCharge, newId } from '@mediagen/db';
import { createAdapters } from '@mediagen/providers';
import { enqueueTask } from '@mediagen/queue';
import { parseStructuredPrompt } from '@mediagen/prompt-optimizer';
import { settleFailed } from '../src/settle';
import { InProcess, startInProcess } from './in-process';
import { eventually, waitFor } from '../../../test/e2e/support/wait';

jest.setTimeout(60_000);

const poll = { firstMs: 50, minMs: 50, maxMs: 200 };
const mm = (base: string, id: string, costOrder: number) => ({
  id, protocol: 'minimax', baseUrl: `${base}/minimax`, apiKey: `${id}-k`, costOrder, poll, timeouts: { submitMs: 5_000 },
  models: { 'video-a-h3': 'MiniMax-H3' }, effortModels: { '1.5x': 'MiniMax-H3', '2x': 'MiniMax-H3' },
});
const PICTURES = [
  { kind: 'image', path: 'media[0].url', source: 'url', url: 'https://cdn.example.com/fox.png', role: 'reference' },
  { kind: 'image', path: 'media[1].url', source: 'url', url: 'https://cdn.example.com/forest.png', role: 'reference' },
];
const OPT = { optimizePrompt: true, refMode: 'omni', media: PICTURES, duration: 4, outputSeconds: 4 };

/** What each submit sent upstream as its prompt, by task (the adapters wrapped). */
const sent = new Map<string, string[]>();
const recordingAdapters = (channels: Parameters<typeof createAdapters>[0]) => {
  const adapters = createAdapters(channels);
  for (const a of adapters.values()) {
    const submit = a.submit.bind(a);
    a.submit = (req) => {
      if (req.spec.type === 'video') sent.set(req.taskId, [...(sent.get(req.taskId) ?? []), req.spec.prompt ?? '']);
      return submit(req);
    };
  }
  return adapters;
};

async function start(optimizer: ((simBase: string) => object) | 'off'): Promise<InProcess> {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mg-opt-')), 'optimizer.json');
  return startInProcess(
    (base) => {
      // Called with the simulator's address before the worker starts (and reads the file).
      if (optimizer !== 'off') fs.writeFileSync(file, JSON.stringify(optimizer(base)));
      return { channels: [mm(base, 'mm-a', 1), mm(base, 'mm-b', 2)] };
    },
    { ALLOW_PRIVATE_MEDIA_URLS: 'true', PROMPT_OPTIMIZER: optimizer === 'off' ? 'off' : file },
    { adapters: recordingAdapters },
  );
}

const task = (w: InProcess, id: string) => w.db.task.findUniqueOrThrow({ where: { id } });
const charges = (w: InProcess, id: string) => w.db.ledgerEntry.findMany({ where: { taskId: id } });

describe('openai-chat optimizer (the simulator, a 1.5 s deadline)', () => {
  let w: InProcess;
  beforeAll(async () => {
    w = await start((base) => ({ protocol: 'openai-chat', baseUrl: `${base}/optimizer/openai/v1`, model: 'sim-prompt-writer', timeoutMs: 1_500,
      price: { inputMicroUsdPerMillionTokens: 400_000, outputMicroUsdPerMillionTokens: 1_600_000 } }));
  });
  afterAll(() => w?.stop());

  it('two pictures: the structured prompt is kept with the task and is what the render was sent', async () => {
    const id = await w.submit('the fox <Picture 1> runs through the forest <Picture 2>', 'video-a-h3', OPT);
    expect(await w.settled(id)).toMatchObject({ status: 'completed' });
    const t = await task(w, id);
    expect(t).toMatchObject({ promptOptimized: true, promptFallbackReason: null });
    const p = parseStructuredPrompt(t.effectivePrompt!);
    expect(p?.subjects.map((s) => s.label)).toEqual(['<Picture 1>', '<Picture 2>']);
    expect(p?.shots.at(-1)?.end).toBe(4);
    expect(sent.get(id)).toEqual([t.effectivePrompt]);
    // No extra charge: the one charge of the submit.
    expect((await charges(w, id)).map((e) => [e.kind, Number(e.amountCents)])).toEqual([['charge', -7]]);
    const metrics = await w.app.ctx.metrics.registry.metrics();
    expect(metrics).toMatch(/mediagen_prompt_optimizer_total\{outcome="rewritten"[^}]*\} 1\n/);
    // 1200 * 0.4 + 180 * 1.6 = 768 micro-USD, on the model's upstream cost.
    expect(metrics).toMatch(/mediagen_model_upstream_cost_micro_usd_total\{model="video-a-h3",channel="optimizer:sim-prompt-writer"[^}]*\} 768\n/);
  });

  it('the rewrite is done once and reused when the render falls back to the next channel', async () => {
    const before = w.optimizerCalls.openai;
    const id = await w.submit('the fox <Picture 1> in <Picture 2> #sim:fail-first', 'video-a-h3', OPT);
    expect(await w.settled(id)).toMatchObject({ status: 'completed' });
    const t = await task(w, id);
    expect(t.promptOptimized).toBe(true);
    expect(sent.get(id)).toEqual([t.effectivePrompt, t.effectivePrompt]);
    expect(w.optimizerCalls.openai - before).toBe(1);
  });

  it('a decision kept from a run that crashed is reused: no second call', async () => {
    const before = w.optimizerCalls.openai;
    // The task as a run that decided and then died left it: the decision stored, nothing submitted.
    const id = newId();
    const params = { type: 'video', model: 'video-a-h3', prompt: 'the fox <Picture 1> in <Picture 2>', ratio: '16:9', resolution: '480p', tier: null, variant: null,
      effort: null, seed: null, firstFrame: null, lastFrame: null, ...OPT };
    await createTaskWithCharge(w.db, { taskId: id, accountId: w.accountId, type: 'video', model: 'video-a-h3', params, costCents: 7, costMicros: 70_000n, billedSeconds: 4,
      deadlineAt: new Date(Date.now() + 60_000) });
    await w.db.task.update({ where: { id }, data: { effectivePrompt: 'kept from the first run', promptOptimized: true } });
    await enqueueTask(w.queue, id);
    expect(await w.settled(id)).toMatchObject({ status: 'completed' });
    expect(sent.get(id)).toEqual(['kept from the first run']);
    expect(w.optimizerCalls.openai).toBe(before);
  });

  it('a prompt already in the format goes unchanged, with no model call', async () => {
    const before = w.optimizerCalls.openai;
    const prompt = 'Subjects:\n- <Picture 1>: a fox\n- <Picture 2>: a forest\nShots:\n1. 0-4 s: the fox runs\nSound:\n- Voice: none\n- Music: none\n- Effects: wind';
    const id = await w.submit(prompt, 'video-a-h3', OPT);
    expect(await w.settled(id)).toMatchObject({ status: 'completed' });
    expect(await task(w, id)).toMatchObject({ effectivePrompt: prompt, promptOptimized: false, promptFallbackReason: expect.stringMatching(/^already_structured/) });
    expect(sent.get(id)).toEqual([prompt]);
    expect(w.optimizerCalls.openai).toBe(before);
  });

  it.each([
    ['a failing optimizer', 'a fox #sim:optimizer=fail', /^error: HTTP 500/],
    ['a refusing optimizer', 'a fox #sim:optimizer=refuse', /^refused: I'm sorry/],
    ['a prose answer', 'a fox #sim:optimizer=malformed', /^unparsable: the answer is not JSON/],
    ['an answer inventing <Picture 9>', 'a fox <Picture 1> <Picture 2> #sim:optimizer=invent', /^invalid: <Picture 9> does not exist/],
    ['<Picture 9> in the prompt with 2 images', 'put <Picture 9> beside <Picture 1>', /^invalid: <Picture 9> does not exist/],
    ['a hanging optimizer', 'a fox #sim:optimizer=slow', /^timeout: no answer within 1500 ms/],
    ['a prompt of the maximum length', 'a fox in the snow <Picture 1> '.repeat(400).slice(0, 10_000), /^invalid: the rewrite is \d+ characters, over 10000/],
  ])('%s: the prompt goes as written and the task completes, charged once', async (_case, prompt, reason) => {
    const id = await w.submit(prompt, 'video-a-h3', OPT);
    expect(await w.settled(id, 30_000)).toMatchObject({ status: 'completed' });
    const t = await task(w, id);
    expect(t).toMatchObject({ effectivePrompt: prompt, promptOptimized: false });
    expect(t.promptFallbackReason).toMatch(reason);
    expect(sent.get(id)).toEqual([prompt]);
    expect((await charges(w, id)).map((e) => e.kind)).toEqual(['charge']);
  });

  it('the task is processing while the rewrite runs, with no prompt decided yet', async () => {
    const id = await w.submit('a fox <Picture 1> <Picture 2> #sim:optimizer-delay=1000', 'video-a-h3', OPT);
    const seen = await eventually('the task taken up', async () => {
      const t = await task(w, id);
      return t.status !== 'pending' && t;
    });
    expect(seen).toMatchObject({ status: 'processing', promptOptimized: null });
    expect(await w.settled(id)).toMatchObject({ status: 'completed' });
    expect((await task(w, id)).promptOptimized).toBe(true);
  });

  it('a task cancelled while its rewrite runs is not sent upstream', async () => {
    const id = await w.submit('a fox <Picture 1> <Picture 2> #sim:optimizer-delay=800', 'video-a-h3', OPT);
    await waitFor(async () => (await task(w, id)).status !== 'pending', 15_000, 'the task taken up');
    expect(await settleFailed(w.app.ctx, id, 'cancelled')).toBe(true);
    // The rewrite's answer comes, its decision is stored, and the step sees the task settled: the
    // job ends (completed, then removed) rather than going on to submit.
    await waitFor(async () => (await task(w, id)).promptOptimized !== null, 15_000, 'the rewrite decided');
    const jobOver = async () => {
      const job = await w.queue.getJob(id);
      return !job || ['completed', 'failed'].includes(await job.getState());
    };
    await waitFor(jobOver, 15_000, 'the task job over');
    expect(await task(w, id)).toMatchObject({ status: 'failed', errorCode: 'cancelled', promptOptimized: true });
    expect(sent.get(id)).toBeUndefined();
    expect(await w.db.taskAttempt.count({ where: { taskId: id } })).toBe(0);
    expect((await charges(w, id)).map((e) => e.kind).sort()).toEqual(['charge', 'refund']);
  });

  it('tasks without optimize_prompt are not touched', async () => {
    const before = w.optimizerCalls.openai;
    const id = await w.submit('a fox <Picture 1>', 'video-a-h3', { media: PICTURES });
    expect(await w.settled(id)).toMatchObject({ status: 'completed' });
    expect(await task(w, id)).toMatchObject({ effectivePrompt: null, promptOptimized: null });
    expect(w.optimizerCalls.openai).toBe(before);
  });
});

describe('gemini optimizer (the simulator)', () => {
  let w: InProcess;
  beforeAll(async () => {
    w = await start((base) => ({ protocol: 'gemini', baseUrl: `${base}/optimizer/gemini/v1beta`, apiKey: 'g', model: 'gemini-2.5-flash', media: 'url' }));
  });
  afterAll(() => w?.stop());

  it('rewrites over generateContent and the render gets the rewrite', async () => {
    const id = await w.submit('the fox <Picture 1> runs through the forest <Picture 2>', 'video-a-h3', OPT);
    expect(await w.settled(id)).toMatchObject({ status: 'completed' });
    const t = await task(w, id);
    expect(t.promptOptimized).toBe(true);
    expect(parseStructuredPrompt(t.effectivePrompt!)?.subjects).toHaveLength(2);
    expect(sent.get(id)).toEqual([t.effectivePrompt]);
    expect(w.optimizerCalls.gemini).toBe(1);
  });

  it('a refusal (promptFeedback.blockReason) falls back', async () => {
    const id = await w.submit('a fox #sim:optimizer=refuse', 'video-a-h3', OPT);
    expect(await w.settled(id)).toMatchObject({ status: 'completed' });
    expect(await task(w, id)).toMatchObject({ promptOptimized: false, promptFallbackReason: expect.stringMatching(/^refused: prompt blocked: PROHIBITED_CONTENT/) });
  });
});

describe('gemini optimizer with inline references (bytes fetched under the media URL policy)', () => {
  let w: InProcess;
  let media: http.Server;
  const fetched: string[] = [];
  beforeAll(async () => {
    media = http.createServer((req, res) => {
      fetched.push(req.url ?? '');
      res.writeHead(200, { 'Content-Type': 'image/png' }).end(Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'));
    });
    await new Promise<void>((r) => media.listen(0, '127.0.0.1', r));
    w = await start((base) => ({ protocol: 'gemini', baseUrl: `${base}/optimizer/gemini/v1beta`, apiKey: 'g', model: 'gemini-2.5-flash' }));
  });
  afterAll(async () => {
    await w?.stop();
    media?.close();
  });

  it('reads each picture once and rewrites', async () => {
    const port = (media.address() as AddressInfo).port;
    const pictures = ['fox', 'forest'].map((n, i) => ({ ...PICTURES[i], url: `http://127.0.0.1:${port}/${n}.png` }));
    const id = await w.submit('the fox <Picture 1> runs through the forest <Picture 2>', 'video-a-h3', { ...OPT, media: pictures });
    expect(await w.settled(id)).toMatchObject({ status: 'completed' });
    expect((await task(w, id)).promptOptimized).toBe(true);
    expect(fetched.sort()).toEqual(['/forest.png', '/fox.png']);
  });
});

describe('no optimizer configured (PROMPT_OPTIMIZER=off)', () => {
  let w: InProcess;
  beforeAll(async () => {
    w = await start('off');
  });
  afterAll(() => w?.stop());

  it('optimize_prompt sends the prompt as written, and says why', async () => {
    const id = await w.submit('a fox <Picture 1>', 'video-a-h3', OPT);
    expect(await w.settled(id)).toMatchObject({ status: 'completed' });
    expect(await task(w, id)).toMatchObject({ effectivePrompt: 'a fox <Picture 1>', promptOptimized: false, promptFallbackReason: expect.stringMatching(/^not_configured/) });
  });
});
