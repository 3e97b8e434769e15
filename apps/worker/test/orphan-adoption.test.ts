// No render is paid twice, through the simulator's ModelArk and Replicate protocols and the real adapters:
// the upstream accepts a render but its answer never reaches us (the window between the upstream's
// answer and our write of its id: a worker killed there, or a submit that timed out). The resumed
// attempt finds the render in the upstream's list (ModelArk: the attempt's seed; Replicate: model
// and input) and adopts it: one render upstream, one charge, completed.
import { createHash } from 'node:crypto';
import { createTaskWithCharge, ledgerDiscrepancies, newId } from '@mediagen/db';
import { ChannelAdapter, createAdapter, RenderRequest } from '@mediagen/providers';
import { enqueueTask } from '@mediagen/queue';
import { InProcess, startInProcess } from './in-process';

jest.setTimeout(40_000);

/** Tasks whose first submit answer is dropped after the upstream created the render. */
const dropped = new Set<string>();
const searches: string[] = [];

function losingFirstAnswer(a: ChannelAdapter): ChannelAdapter {
  return {
    ...a,
    async submit(req: RenderRequest) {
      const res = await a.submit(req);
      if (!dropped.has(req.taskId)) {
        dropped.add(req.taskId);
        // What a reset connection looks like after the upstream accepted the request.
        throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
      }
      return res;
    },
    async findOrphan(req: RenderRequest) {
      searches.push(req.taskId);
      return a.findOrphan!(req);
    },
  };
}

let w: InProcess;
beforeAll(async () => {
  const poll = { firstMs: 50, minMs: 50, maxMs: 200 };
  w = await startInProcess(
    (base) => ({
      channels: [
        { id: 'ark', protocol: 'modelark', baseUrl: `${base}/modelark/api/v3`, apiKey: 'ark-k', tier: 'third-party', costOrder: 1, models: { 'video-b-2.0': 'dreamina-seedance-2-0-260128' }, poll },
        { id: 'rep', protocol: 'replicate', baseUrl: `${base}/replicate/v1`, apiKey: 'rep-k', costOrder: 1, models: { 'video-c-3.1-fast': 'google/veo-3.1' }, poll },
      ],
    }),
    { ALLOW_PRIVATE_MEDIA_URLS: 'true' },
    { adapters: (cfg) => new Map(cfg.channels.map((c) => [c.id, losingFirstAnswer(createAdapter(c))])) },
  );
});
afterAll(async () => {
  if (!w) return;
  expect(await ledgerDiscrepancies(w.db)).toEqual([]);
  await w.stop();
});

const promptRef = (prompt: string) => `prompt:${createHash('sha256').update(prompt).digest('hex').slice(0, 32)}`;

async function submit(model: string, prompt: string, extra: Record<string, unknown>): Promise<string> {
  const taskId = newId();
  const spec = { type: 'video', model, prompt, duration: 5, ratio: '16:9', resolution: null, tier: null, variant: null, refMode: null,
    effort: null, seed: null, optimizePrompt: null, media: [], firstFrame: null, lastFrame: null, outputSeconds: 5, ...extra };
  await createTaskWithCharge(w.db, { taskId, accountId: w.accountId, type: 'video', model, params: spec, costCents: 7, costMicros: 70_000n, billedSeconds: 5,
    deadlineAt: new Date(Date.now() + 60_000) });
  await enqueueTask(w.queue, taskId);
  return taskId;
}

it.each([
  ['ModelArk (Seedance, found by the seed of its attempt)', 'video-b-2.0', 'a heron takes off #sim:delay=600', { tier: 'third-party', resolution: '720p' }, 'ark'],
  ['Replicate (Veo, found by model and input)', 'video-c-3.1', 'a kite over dunes #sim:delay=600', { variant: 'video-c-3.1-fast' }, 'rep'],
])('%s: the render whose answer was lost is adopted, not rendered again', async (_name, model, prompt, extra, channel) => {
  const taskId = await submit(model, prompt, extra);
  expect(await w.settled(taskId, 30_000)).toMatchObject({ status: 'completed' });
  const sim = w.sim.refSummary(promptRef(prompt));
  expect(sim.submits).toBe(1);
  expect(sim.renders).toHaveLength(1);
  expect(searches).toContain(taskId);
  const attempts = await w.closedAttempts(taskId);
  expect(attempts.map((a) => [a.channelId, a.status, a.upstreamId])).toEqual([[channel, 'completed', sim.renders[0].id]]);
  expect((await w.db.ledgerEntry.findMany({ where: { taskId } })).map((l) => l.kind)).toEqual(['charge']);
  const found = (await w.app.ctx.metrics.upstream.resubmits.get()).values.find((v) => v.labels.channel === channel && v.labels.how === 'orphan_found');
  expect(found?.value).toBe(1);
});
