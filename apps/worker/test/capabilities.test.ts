// The worker decides from adapter capabilities: a
// scripted upstream (no idempotent submit, cancel, orphan search, synchronous answers, usage) whose
// behaviour per task is named in the prompt, behind one channel of a real in-process worker.
import { newId, createTaskWithCharge } from '@mediagen/db';
import { AdapterCapabilities, ChannelAdapter, ChannelConfig, classifyUpstreamError, RenderRequest, RenderStatus, UpstreamError } from '@mediagen/providers';
import { enqueueTask } from '@mediagen/queue';
import { waitFor } from '../../../test/e2e/support/wait';
import { InProcess, startInProcess } from './in-process';

// The smallest thing the download path accepts as an MP4: an ftyp box.
const mp4 = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom', 'latin1'), Buffer.alloc(12), Buffer.alloc(200, 7)]);
const done = (usage?: { units: string; amount: number; costMicroUsd?: number }): RenderStatus => ({
  state: 'succeeded',
  outputs: [{ kind: 'inline', data: mp4, contentType: 'video/mp4' }],
  usage,
});

interface Calls {
  submits: Map<string, number>;
  polls: Map<string, number>;
  cancels: string[];
  orphanSearches: string[];
}
const calls: Calls = { submits: new Map(), polls: new Map(), cancels: [], orphanSearches: [] };
const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);

function scripted(ch: ChannelConfig['channels'][number]): ChannelAdapter {
  const renders = new Map<string, { taskId: string; prompt: string; polls: number }>();
  let n = 0;
  const capabilities: AdapterCapabilities = { idempotentSubmit: false, cancel: true, callbacks: 'none', synchronous: true, findOrphan: true, pollUsesRender: false };
  return {
    channel: ch,
    capabilities,
    async submit(req: RenderRequest) {
      const prompt = req.spec.prompt ?? '';
      bump(calls.submits, req.taskId);
      const upstreamId = `u-${++n}-${req.taskId}`;
      renders.set(upstreamId, { taskId: req.taskId, prompt, polls: 0 });
      // A finished render whose file is not a video: the download path refuses it.
      if (prompt.includes('sync-refused'))
        return { upstreamId, status: { state: 'succeeded', outputs: [{ kind: 'inline', data: Buffer.from('<html>error</html>'), contentType: 'video/mp4' }] } };
      if (prompt.includes('sync')) return { upstreamId, status: done({ units: 'seconds', amount: 2, costMicroUsd: 30_000 }) };
      return { upstreamId };
    },
    async poll(upstreamId: string): Promise<RenderStatus> {
      // A render that finished upstream before this worker saw it (the test writes its attempt).
      if (upstreamId.startsWith('finished-')) return done();
      const r = renders.get(upstreamId);
      if (!r) throw new UpstreamError('lost', `unknown ${upstreamId}`, undefined, 404);
      bump(calls.polls, r.taskId);
      r.polls += 1;
      if (r.prompt.includes('lost-always')) throw new UpstreamError('lost', 'gone', undefined, 404);
      // 'lost-once': the first render of the task is forgotten upstream, the fresh one works.
      if (r.prompt.includes('lost-once') && upstreamId.startsWith('u-') && (calls.submits.get(r.taskId) ?? 0) === 1)
        throw new UpstreamError('lost', 'gone', undefined, 404);
      if (r.prompt.includes('hang')) return { state: 'running', progress: 10 };
      return done();
    },
    async cancel(upstreamId: string) {
      calls.cancels.push(upstreamId);
    },
    async findOrphan(req: RenderRequest) {
      calls.orphanSearches.push(req.taskId);
      // An upstream without the list (404): the search cannot run, the submit goes out blind.
      if ((req.spec.prompt ?? '').includes('unlisted')) throw new UpstreamError('failed', 'orphan search: HTTP 404', undefined, 404);
      // A search that matches a render another task recorded (same input at the same time).
      if ((req.spec.prompt ?? '').includes('claimed')) return 'taken-by-another-task';
      if (!(req.spec.prompt ?? '').includes('orphan')) return null;
      const upstreamId = `orphan-${req.taskId}`;
      renders.set(upstreamId, { taskId: req.taskId, prompt: req.spec.prompt ?? '', polls: 0 });
      return upstreamId;
    },
    classifyError: (err, action) => classifyUpstreamError(err, { reportsViolations: false, action }),
    close() {},
  };
}

let w: InProcess;
beforeAll(async () => {
  w = await startInProcess(
    (base) => ({ channels: [{ id: 'scripted', baseUrl: `${base}/ch/scripted`, apiKey: 'k', costOrder: 1, models: { 'video-a-h3': 'm' }, poll: { firstMs: 20, minMs: 20, maxMs: 100 } }] }),
    { TASK_TIMEOUT_MS: '3000' },
    { adapters: (cfg) => new Map(cfg.channels.map((c) => [c.id, scripted(c)])) },
  );
}, 30_000);
afterAll(async () => {
  await w?.stop();
});

/** The task's attempts once none is active (the task settles just before its attempt closes). */
const attempts = (taskId: string) => w.closedAttempts(taskId);

it('stores a synchronous answer at once (no poll) and records the upstream usage and cost on the attempt', async () => {
  const taskId = await w.submit('a cat sync');
  expect(await w.settled(taskId)).toMatchObject({ status: 'completed' });
  expect(calls.polls.get(taskId) ?? 0).toBe(0);
  const [a] = await attempts(taskId);
  expect(a).toMatchObject({ status: 'completed', channelId: 'scripted', upstreamId: expect.stringMatching(/^u-\d+-/), usageUnits: 'seconds', usageAmount: 2, upstreamCostMicros: 30_000n });
  // pending -> processing ran beside the upstream call, and before the completion.
  const task = await w.db.task.findUniqueOrThrow({ where: { id: taskId } });
  expect(task.startedAt).not.toBeNull();
  expect(task.startedAt!.getTime()).toBeLessThanOrEqual(task.finishedAt!.getTime());
  // Charged 7 cents = 70,000 micro-USD; the upstream cost 30,000: a margin of 40,000 on this model.
  const margin = await w.app.ctx.metrics.upstream.marginMicros.get();
  expect(margin.values.find((v) => v.labels.model === 'video-a-h3')?.value).toBe(40_000);
});

it('a synchronous answer whose file is refused fails the task with no_result; the attempt record of the render is not overwritten', async () => {
  const taskId = await w.submit('a cat sync-refused');
  expect(await w.settled(taskId)).toMatchObject({ status: 'failed', errorCode: 'no_result' });
  const [a] = await attempts(taskId);
  // The attempt's own write (id, `succeeded`) ran beside the download and landed before the close.
  expect(a).toMatchObject({ status: 'no_result', upstreamId: expect.stringMatching(/^u-\d+-/), errorKind: 'unusable' });
  expect(calls.submits.get(taskId)).toBe(1);
});

it('gives a lost render one fresh attempt on the same channel, visible in the attempts', async () => {
  const taskId = await w.submit('a dog lost-once');
  expect(await w.settled(taskId)).toMatchObject({ status: 'completed' });
  const rows = await attempts(taskId);
  expect(rows.map((r) => [r.channelId, r.status])).toEqual([['scripted', 'lost'], ['scripted', 'completed']]);
});

it('does not retry a channel that loses the render twice', async () => {
  const taskId = await w.submit('a bird lost-always');
  expect(await w.settled(taskId)).toMatchObject({ status: 'failed', errorCode: 'generation_failed' });
  expect((await attempts(taskId)).map((r) => r.status)).toEqual(['lost', 'lost']);
});

it('cancels the upstream render of a task that timed out', async () => {
  const taskId = await w.submit('a slow fish hang');
  expect(await w.settled(taskId, 10_000)).toMatchObject({ status: 'failed', errorCode: 'timeout' });
  const [a] = await attempts(taskId);
  await waitFor(() => calls.cancels.includes(a.upstreamId!), 5_000, 'the upstream cancel').catch(() => undefined);
  expect(calls.cancels).toContain(a.upstreamId);
});

it('a client cancel that reaches a finished render being collected sends no upstream cancel: the task completes and stays charged', async () => {
  const taskId = newId();
  const spec = { type: 'video', model: 'video-a-h3', prompt: 'a finished render', duration: 2, ratio: '16:9', resolution: '480p', tier: null, variant: null, refMode: null,
    effort: null, seed: null, optimizePrompt: null, media: [], firstFrame: null, lastFrame: null, outputSeconds: 2 };
  await createTaskWithCharge(w.db, { taskId, accountId: w.accountId, type: 'video', model: 'video-a-h3', params: spec, costCents: 7, costMicros: 70_000n,
    billedSeconds: 2, deadlineAt: new Date(Date.now() + 60_000) });
  // The render succeeded upstream and its download was under way when the client asked to cancel.
  await w.db.task.update({ where: { id: taskId }, data: { status: 'processing', cancelRequestedAt: new Date() } });
  await w.db.taskAttempt.create({ data: { id: newId('att'), taskId, attemptNo: 1, channelId: 'scripted', status: 'succeeded', upstreamId: `finished-${taskId}`, submitSentAt: new Date() } });
  const before = (await w.db.account.findUniqueOrThrow({ where: { id: w.accountId } })).balanceCents;
  await enqueueTask(w.queue, taskId);
  expect(await w.settled(taskId)).toMatchObject({ status: 'completed' });
  // No cancel went upstream (ModelArk would have deleted the finished task's record), no refund.
  expect(calls.cancels).not.toContain(`finished-${taskId}`);
  expect((await w.db.account.findUniqueOrThrow({ where: { id: w.accountId } })).balanceCents).toBe(before);
  expect((await w.db.task.findUniqueOrThrow({ where: { id: taskId } })).cancelRequestedAt).toBeNull();
});

describe('an attempt resumed in `submitting` after its submit was sent (no upstream idempotency)', () => {
  async function crashedAfterSend(prompt: string): Promise<string> {
    const taskId = newId();
    const spec = { type: 'video', model: 'video-a-h3', prompt, duration: 2, ratio: '16:9', resolution: '480p', tier: null, variant: null, refMode: null,
      effort: null, seed: null, optimizePrompt: null, media: [], firstFrame: null, lastFrame: null, outputSeconds: 2 };
    await createTaskWithCharge(w.db, { taskId, accountId: w.accountId, type: 'video', model: 'video-a-h3', params: spec, costCents: 7, costMicros: 70_000n,
      billedSeconds: 2, deadlineAt: new Date(Date.now() + 60_000) });
    // What a worker killed between sending the submit and writing the upstream id leaves behind.
    await w.db.taskAttempt.create({ data: { id: newId('att'), taskId, attemptNo: 1, channelId: 'scripted', status: 'submitting', submitSentAt: new Date() } });
    await enqueueTask(w.queue, taskId);
    return taskId;
  }

  it('adopts the render the upstream already has instead of submitting again', async () => {
    const taskId = await crashedAfterSend('an owl orphan');
    expect(await w.settled(taskId)).toMatchObject({ status: 'completed' });
    expect(calls.orphanSearches).toContain(taskId);
    expect(calls.submits.get(taskId) ?? 0).toBe(0);
    expect((await attempts(taskId))[0]).toMatchObject({ upstreamId: `orphan-${taskId}`, status: 'completed' });
  });

  it('submits without a search where the upstream has no list, counted as blind', async () => {
    const taskId = await crashedAfterSend('a vole unlisted');
    expect(await w.settled(taskId)).toMatchObject({ status: 'completed' });
    expect(calls.orphanSearches).toContain(taskId);
    expect(calls.submits.get(taskId)).toBe(1);
    const blind = (await w.app.ctx.metrics.upstream.resubmits.get()).values.find((v) => v.labels.how === 'blind');
    expect(blind?.value).toBeGreaterThanOrEqual(1);
  });

  it('never adopts a render another task already recorded', async () => {
    const other = await crashedAfterSend('another task');
    await w.settled(other);
    await w.db.taskAttempt.updateMany({ where: { taskId: other }, data: { upstreamId: 'taken-by-another-task' } });
    const taskId = await crashedAfterSend('a mole claimed');
    expect(await w.settled(taskId)).toMatchObject({ status: 'completed' });
    expect(calls.submits.get(taskId)).toBe(1);
    expect((await attempts(taskId))[0].upstreamId).not.toBe('taken-by-another-task');
  });

  it('searches first, and submits when the upstream has none', async () => {
    const taskId = await crashedAfterSend('a newt');
    expect(await w.settled(taskId)).toMatchObject({ status: 'completed' });
    expect(calls.orphanSearches).toContain(taskId);
    expect(calls.submits.get(taskId)).toBe(1);
  });
});
