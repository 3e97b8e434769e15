// A poll step whose job names the running attempt (its hint) reads the upstream status beside
// loading the task, not after it; the answer is used only when the loaded rows confirm the hinted
// attempt is the one to read. The order is observed, not timed: the test holds an exclusive lock on
// the Task table, so the step's loadTask waits (seen in pg_stat_activity, blocked by the test's
// session) while the scripted upstream records whether its status was already asked.
import { createTaskWithCharge, ledgerDiscrepancies, newId } from '@mediagen/db';
import { AdapterCapabilities, ChannelAdapter, ChannelConfig, classifyUpstreamError, RenderStatus, UpstreamError } from '@mediagen/providers';
import { JOBS, runTaskPayloadSchema, type PollHint } from '@mediagen/queue';
import { settleFailed } from '../src/settle';
import { eventually } from '../../../test/e2e/support/wait';
import { InProcess, startInProcess } from './in-process';

jest.setTimeout(40_000);

const mp4 = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom', 'latin1'), Buffer.alloc(12), Buffer.alloc(200, 7)]);

/** What the scripted upstream answers for a render: running until the test says otherwise. */
const answers = new Map<string, 'running' | 'succeeded' | 'failed'>();
const polls = new Map<string, number>();
const pollsOf = (upstreamId: string) => polls.get(upstreamId) ?? 0;

function scripted(ch: ChannelConfig['channels'][number], pollUsesRender: boolean): ChannelAdapter {
  const capabilities: AdapterCapabilities = { idempotentSubmit: false, cancel: true, callbacks: 'hint', synchronous: false, findOrphan: false, pollUsesRender };
  let n = 0;
  return {
    channel: ch,
    capabilities,
    async submit(req) {
      const upstreamId = `${ch.id}-${++n}-${req.taskId}`;
      answers.set(upstreamId, 'running');
      return { upstreamId };
    },
    async poll(upstreamId): Promise<RenderStatus> {
      polls.set(upstreamId, pollsOf(upstreamId) + 1);
      const answer = answers.get(upstreamId);
      if (!answer) throw new UpstreamError('lost', `unknown ${upstreamId}`, undefined, 404);
      if (answer === 'running') return { state: 'running', progress: 40 };
      if (answer === 'failed') return { state: 'failed', error: new UpstreamError('failed', 'the render failed upstream') };
      return { state: 'succeeded', outputs: [{ kind: 'inline', data: mp4, contentType: 'video/mp4' }] };
    },
    async cancel() {},
    classifyError: (err, action) => classifyUpstreamError(err, { reportsViolations: false, action }),
    close() {},
  };
}

let w: InProcess;
let schema: string;
beforeAll(async () => {
  // The first poll is far off: only a wake (the test promotes the job, as an upstream callback does) runs it.
  const poll = { firstMs: 60_000, minMs: 60_000, maxMs: 60_000 };
  const channel = (id: string, costOrder: number, model: string, extra: Record<string, unknown> = {}) => ({
    id, baseUrl: 'http://127.0.0.1:1', apiKey: 'k', costOrder, models: { [model]: 'm' }, poll: { ...poll, ...extra },
  });
  w = await startInProcess(
    () => ({
      channels: [
        channel('early', 1, 'video-a-h3'),
        // Limits its status calls: every read takes its share of the limit, so none is made early.
        channel('limited', 1, 'video-b-2.0-mini', { maxPerSecond: 50 }),
        // Prices a finished render from the task's params (as fal and Gemini do): read after loadTask.
        channel('priced', 1, 'video-b-2.0'),
      ],
    }),
    { TASK_TIMEOUT_MS: '60000' },
    { adapters: (cfg) => new Map(cfg.channels.map((c) => [c.id, scripted(c, c.id === 'priced')])) },
  );
  schema = new URL(w.app.ctx.config.DATABASE_URL).searchParams.get('schema')!;
});
afterAll(async () => {
  if (!w) return;
  expect(await ledgerDiscrepancies(w.db)).toEqual([]);
  await w.stop();
});

const SPEC = { type: 'video', duration: 2, ratio: '16:9', resolution: '480p', tier: null, variant: null, refMode: null,
  effort: null, seed: null, optimizePrompt: null, media: [], firstFrame: null, lastFrame: null, outputSeconds: 2 };

const job = async (taskId: string) => (await w.queue.getJob(taskId))!;

/** Submits a task and waits until its render runs upstream and its job waits for the poll. */
async function runningTask(prompt: string, model = 'video-a-h3'): Promise<{ taskId: string; upstreamId: string; hint: PollHint | undefined }> {
  const taskId = await w.submit(prompt, model);
  const upstreamId = await eventually('the render to run upstream', async () => {
    const [a] = await w.db.taskAttempt.findMany({ where: { taskId, status: 'running' } });
    return a?.upstreamId;
  });
  const j = await eventually('the job to wait for its poll', async () => {
    const found = await job(taskId);
    return (await found.getState()) === 'delayed' && found.data.step === 'poll' ? found : null;
  });
  return { taskId, upstreamId, hint: runTaskPayloadSchema.parse(j.data).poll };
}

/**
 * Runs `during` while the test's session holds the Task table, and gives it a check that the task's
 * step is waiting in loadTask (its query blocked by that session).
 */
async function withTasksLocked(during: (loadTaskWaiting: () => Promise<void>) => Promise<void>): Promise<void> {
  await w.db.$transaction(
    async (tx) => {
      const [{ pid }] = await tx.$queryRawUnsafe<{ pid: number }[]>('SELECT pg_backend_pid() AS pid');
      await tx.$executeRawUnsafe(`LOCK TABLE "${schema}"."Task" IN ACCESS EXCLUSIVE MODE`);
      const loadTaskWaiting = () =>
        eventually('the step to wait in loadTask', async () => {
          const rows = await w.db.$queryRawUnsafe<{ n: bigint }[]>(
            `SELECT count(*) AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid)) AND query LIKE '%LEFT JOIN LATERAL%'`,
            pid,
          );
          return rows[0].n > 0n;
        }, 10_000).then(() => undefined);
      await during(loadTaskWaiting);
    },
    { timeout: 20_000, maxWait: 5_000 },
  );
}

it('a woken poll step with a hint asks the upstream while loadTask waits, and completes the task with one status call', async () => {
  const { taskId, upstreamId, hint } = await runningTask('a woken render');
  const [attempt] = await w.db.taskAttempt.findMany({ where: { taskId } });
  // The job waiting for its poll names the attempt it will read.
  expect(hint).toEqual({ attemptId: attempt.id, channelId: 'early', upstreamId, accountId: w.accountId, type: 'video' });
  answers.set(upstreamId, 'succeeded');
  const before = w.app.ctx.stats.polls;
  await withTasksLocked(async (loadTaskWaiting) => {
    await (await job(taskId)).promote(); // what an upstream callback does
    await loadTaskWaiting();
    // The status read went out before the task's row came back.
    expect(pollsOf(upstreamId)).toBe(1);
  });
  expect(await w.settled(taskId)).toMatchObject({ status: 'completed' });
  expect(pollsOf(upstreamId)).toBe(1);
  expect(w.app.ctx.stats.polls - before).toBe(1);
  expect((await w.closedAttempts(taskId)).map((a) => a.status)).toEqual(['completed']);
});

it('a read-early answer of "still running" leaves the job waiting for its next poll, hint and all', async () => {
  const { taskId, upstreamId, hint } = await runningTask('a render still running');
  expect(hint).toMatchObject({ upstreamId, channelId: 'early' });
  await (await job(taskId)).promote();
  await eventually('the woken poll to run', async () => pollsOf(upstreamId) === 1);
  const j = await eventually('the job to wait again', async () => {
    const found = await job(taskId);
    return (await found.getState()) === 'delayed' && pollsOf(upstreamId) === 1 ? found : null;
  });
  expect(runTaskPayloadSchema.parse(j.data).poll).toEqual(hint);
  expect((await w.db.task.findUniqueOrThrow({ where: { id: taskId } })).progress).toBe(40);
  answers.set(upstreamId, 'succeeded');
  await j.promote();
  expect(await w.settled(taskId)).toMatchObject({ status: 'completed' });
  expect(pollsOf(upstreamId)).toBe(2);
});


/** Runs the task's woken step with loadTask held: no status read until the row is back, then the task completes with one. */
async function completesReadingAfterLoad(taskId: string, upstreamId: string): Promise<void> {
  await withTasksLocked(async (loadTaskWaiting) => {
    await (await job(taskId)).promote();
    await loadTaskWaiting();
    expect(pollsOf(upstreamId)).toBe(0);
  });
  expect(await w.settled(taskId)).toMatchObject({ status: 'completed' });
  expect(pollsOf(upstreamId)).toBe(1);
}

it.each([
  ['limits its status calls per second', 'video-b-2.0-mini'],
  ['prices the answer from the task (pollUsesRender)', 'video-b-2.0'],
])('a channel that %s is read only after loadTask', async (_what, model) => {
  const { taskId, upstreamId, hint } = await runningTask(`a render on ${model}`, model);
  expect(hint).toMatchObject({ upstreamId });
  answers.set(upstreamId, 'succeeded');
  await completesReadingAfterLoad(taskId, upstreamId);
});

it('a failed early read of the hinted attempt is classified as the step\'s own poll: a lost render gets a fresh attempt', async () => {
  const { taskId, upstreamId } = await runningTask('a render the upstream forgot');
  answers.delete(upstreamId); // its status read throws: lost (404)
  await withTasksLocked(async (loadTaskWaiting) => {
    await (await job(taskId)).promote();
    await loadTaskWaiting();
    expect(pollsOf(upstreamId)).toBe(1);
  });
  // Closed as lost, one fresh attempt on the same channel (run-task.ts), whose render now runs.
  const fresh = await eventually('the fresh attempt to run', async () => {
    const rows = await w.db.taskAttempt.findMany({ where: { taskId }, orderBy: { attemptNo: 'asc' } });
    return rows.length === 2 && rows[1].status === 'running' ? rows : null;
  });
  expect(fresh.map((a) => a.status)).toEqual(['lost', 'running']);
  expect(pollsOf(upstreamId)).toBe(1);
  answers.set(fresh[1].upstreamId!, 'succeeded');
  await eventually('the job to wait for the fresh render', async () => (await (await job(taskId)).getState()) === 'delayed');
  await (await job(taskId)).promote();
  expect(await w.settled(taskId)).toMatchObject({ status: 'completed' });
});

it('an early answer that comes before the task\'s row is counted against the channel as the task\'s account\'s', async () => {
  const { taskId, upstreamId } = await runningTask('a render that failed upstream');
  answers.set(upstreamId, 'failed');
  const record = jest.spyOn(w.app.ctx.health, 'record');
  try {
    await withTasksLocked(async (loadTaskWaiting) => {
      await (await job(taskId)).promote();
      await loadTaskWaiting();
      // The breaker counts one account's failed renders once: the outcome names the account, not the task.
      await eventually('the failed render to be counted', async () => record.mock.calls.find((c) => c[0] === 'early' && c[1] === 'failed'));
      expect(record.mock.calls.filter((c) => c[0] === 'early' && c[1] === 'failed').map((c) => c[3])).toEqual([w.accountId]);
    });
  } finally {
    record.mockRestore();
  }
  // Its only channel failed the render: the task fails, refunded.
  expect(await w.settled(taskId)).toMatchObject({ status: 'failed', errorCode: 'generation_failed' });
  expect(pollsOf(upstreamId)).toBe(1);
});

describe('a hint the rows no longer confirm: the early answer is dropped, the step goes on as without it', () => {
  /** A charged task in `status` with the given attempts, and a poll job hinting at `hinted`. */
  async function staleHint(attempts: { status: string; upstreamId: string }[], hinted: string, task: { cancel?: boolean } = {}) {
    const taskId = newId();
    await createTaskWithCharge(w.db, { taskId, accountId: w.accountId, type: 'video', model: 'video-a-h3', params: { ...SPEC, model: 'video-a-h3', prompt: `stale ${taskId}` },
      costCents: 7, costMicros: 70_000n, billedSeconds: 2, deadlineAt: new Date(Date.now() + 60_000) });
    await w.db.task.update({ where: { id: taskId }, data: { status: 'processing', ...(task.cancel ? { cancelRequestedAt: new Date() } : {}) } });
    const ids: string[] = [];
    for (const [i, a] of attempts.entries()) {
      const id = newId('att');
      ids.push(id);
      await w.db.taskAttempt.create({ data: { id, taskId, attemptNo: i + 1, channelId: 'early', status: a.status as 'running', upstreamId: a.upstreamId, submitSentAt: new Date() } });
    }
    const hint: PollHint = { attemptId: ids[attempts.findIndex((a) => a.upstreamId === hinted)], channelId: 'early', upstreamId: hinted, accountId: w.accountId };
    return { taskId, hint, start: () => w.queue.add(JOBS.runTask, { taskId, step: 'poll', transientErrors: 0, poll: hint }, { jobId: taskId }) };
  }
  const jobDone = (taskId: string) => eventually('the job to finish', async () => (await (await job(taskId)).getState()) === 'completed');
  const ledger = async (taskId: string) => (await w.db.ledgerEntry.findMany({ where: { taskId }, orderBy: { createdAt: 'asc' } })).map((e) => e.kind);

  it('the attempt moved on (another attempt row): the new render is polled, the hinted one\'s failure is not used', async () => {
    const old = `gone-${newId()}`; // the upstream no longer knows it: its status read throws (lost)
    const current = `current-${newId()}`;
    answers.set(current, 'succeeded');
    const { taskId, start } = await staleHint([{ status: 'lost', upstreamId: old }, { status: 'running', upstreamId: current }], old);
    await start();
    expect(await w.settled(taskId)).toMatchObject({ status: 'completed' });
    // Read early (counted as a poll), then dropped: the current attempt was read by the step itself.
    expect([pollsOf(old), pollsOf(current)]).toEqual([1, 1]);
    expect((await w.closedAttempts(taskId)).map((a) => a.status)).toEqual(['lost', 'completed']);
    expect(await ledger(taskId)).toEqual(['charge']);
  });

  it('the hinted attempt failed: its render\'s success is not collected; the task fails as it would have', async () => {
    const failed = `failed-${newId()}`;
    answers.set(failed, 'succeeded');
    const { taskId, start } = await staleHint([{ status: 'failed', upstreamId: failed }], failed);
    await start();
    // Its only channel was tried: generation_failed, refunded, nothing downloaded.
    expect(await w.settled(taskId)).toMatchObject({ status: 'failed', errorCode: 'generation_failed' });
    expect(pollsOf(failed)).toBe(1);
    expect((await w.db.task.findUniqueOrThrow({ where: { id: taskId } })).resultUrls).toEqual([]);
    expect(await ledger(taskId)).toEqual(['charge', 'refund']);
  });

  it('the task was cancelled: it settles cancelled, not completed from the early answer', async () => {
    const upstreamId = `cancelled-${newId()}`;
    answers.set(upstreamId, 'succeeded');
    const { taskId, start } = await staleHint([{ status: 'running', upstreamId }], upstreamId, { cancel: true });
    await start();
    expect(await w.settled(taskId)).toMatchObject({ status: 'failed', errorCode: 'cancelled' });
    expect(pollsOf(upstreamId)).toBe(1);
    expect(await ledger(taskId)).toEqual(['charge', 'refund']);
  });

  it('the task was settled elsewhere: one settlement, the attempt tidied', async () => {
    const upstreamId = `settled-${newId()}`;
    answers.set(upstreamId, 'succeeded');
    const { taskId, start } = await staleHint([{ status: 'running', upstreamId }], upstreamId);
    await settleFailed(w.app.ctx, taskId, 'timeout');
    await start();
    await jobDone(taskId);
    expect(await w.db.task.findUniqueOrThrow({ where: { id: taskId } })).toMatchObject({ status: 'failed', errorCode: 'timeout' });
    expect(pollsOf(upstreamId)).toBe(1);
    expect((await w.closedAttempts(taskId)).map((a) => a.status)).toEqual(['abandoned']);
    expect(await ledger(taskId)).toEqual(['charge', 'refund']);
  });
});

it('a poll job without a hint (written before hints) reads the status after loadTask and completes', async () => {
  const { taskId, upstreamId } = await runningTask('an old job');
  answers.set(upstreamId, 'succeeded');
  // What an older worker left in the job's data.
  await (await job(taskId)).updateData({ taskId, step: 'poll', transientErrors: 0 });
  await completesReadingAfterLoad(taskId, upstreamId);
});
