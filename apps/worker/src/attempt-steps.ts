// The steps of one attempt on one channel: submit, poll, collect the result. Each step does a
// little work and says when to come back; no step waits for a render.
import { Attempt, AttemptStatus, finishAttempt, markProcessing, newId, recordUpstreamId, setAttemptStatus, updateProgress } from '@mediagen/db';
import { RenderRequest, ResultFile, ResultRef, UpstreamError, isUpstreamError } from '@mediagen/providers';
import { publicFileUrl, resultKey } from '@mediagen/storage';
import type { WorkerContext } from './context';
import { backoffMs, pollDelayMs, slotWaitMs } from './schedule';
import { settleCompleted, settleFailed } from './settle';
import { settled, StepInput, StepOutcome, TaskRun, wait } from './task-run';

const leaseUntil = (run: TaskRun) => run.task.deadlineAt.getTime() + 60_000;

/** Ends an attempt and gives its channel slot back. */
export async function closeAttempt(ctx: WorkerContext, attempt: Attempt, status: AttemptStatus, err?: UpstreamError): Promise<Attempt> {
  const done = await finishAttempt(ctx.db, attempt, status, err?.kind, err?.message);
  await ctx.slots.release(attempt.channelId, attempt.taskId);
  return done;
}

const nextChannel = async (run: TaskRun, attempt: Attempt, err: UpstreamError): Promise<StepOutcome> => {
  run.ctx.log.info(
    { taskId: run.task.id, accountId: run.task.accountId, channel: attempt.channelId, attemptNo: attempt.attemptNo, errorKind: err.kind, err: err.message },
    'attempt failed',
  );
  return { kind: 'next-channel', attempt: await closeAttempt(run.ctx, attempt, 'failed', err) };
};

const violation = async (run: TaskRun, attempt: Attempt, err: UpstreamError): Promise<StepOutcome> => {
  // Settle first: if the worker dies in between, the task is failed and the attempt is tidied later.
  await settleFailed(run.ctx, run.task.id, 'content_violation', { cause: err.message, channel: attempt.channelId });
  await closeAttempt(run.ctx, attempt, 'violation', err);
  return settled;
};

const noResult = async (run: TaskRun, attempt: Attempt, err: UpstreamError): Promise<StepOutcome> => {
  await settleFailed(run.ctx, run.task.id, 'no_result', { cause: err.message, channel: attempt.channelId });
  await closeAttempt(run.ctx, attempt, 'no_result', err);
  return settled;
};

/** pending -> processing, logged once by whichever step wins the move. */
async function toProcessing(run: TaskRun, attempt: Attempt): Promise<void> {
  if (await markProcessing(run.ctx.db, run.task.id))
    run.ctx.log.info({ taskId: run.task.id, accountId: run.task.accountId, channel: attempt.channelId, attemptNo: attempt.attemptNo }, 'task processing');
}

export async function submitStep({ run, attempt, adapter }: StepInput): Promise<StepOutcome> {
  const { ctx, task } = run;
  // Resumed attempts hold their slot already (acquire is idempotent per task).
  if (!(await ctx.slots.acquire(adapter.channel, task.id, leaseUntil(run)))) return wait('submit', slotWaitMs(), run.transientErrors);
  if (task.status === 'pending') await toProcessing(run, attempt);
  const req: RenderRequest = { taskId: task.id, spec: run.spec, outputSeconds: run.outputSeconds };
  let upstreamId: string;
  try {
    ctx.stats.submits += 1;
    // The key names the attempt: a submit repeated after a crash or a lost answer gets the same render.
    ({ upstreamId } = await adapter.submit(req, `${task.id}:${attempt.attemptNo}`));
  } catch (e) {
    const err = adapter.classifyError(e, 'submit');
    if (err.kind === 'violation') return violation(run, attempt, err);
    if (err.kind !== 'transient') return nextChannel(run, attempt, err);
    const n = run.transientErrors + 1;
    if (n > ctx.config.WORKER_MAX_TRANSIENT_ERRORS) return nextChannel(run, attempt, err);
    return wait('submit', backoffMs(n, err.retryAfterMs), n);
  }
  // Durable before the job moves on: from here a resumed job polls this render.
  await recordUpstreamId(ctx.db, attempt, upstreamId);
  return wait('poll', adapter.channel.poll.firstMs);
}

export async function pollStep({ run, attempt, adapter }: StepInput): Promise<StepOutcome> {
  const { ctx, task } = run;
  ctx.stats.polls += 1;
  let status;
  try {
    status = await adapter.poll(attempt.upstreamId!);
  } catch (e) {
    const err = adapter.classifyError(e, 'status');
    if (err.kind === 'violation') return violation(run, attempt, err);
    if (err.kind !== 'transient') return nextChannel(run, attempt, err);
    // The render keeps running upstream whatever our connection does; keep asking until the deadline.
    const n = run.transientErrors + 1;
    return wait('poll', backoffMs(n, err.retryAfterMs), n);
  }
  if (status.state === 'running') {
    if (task.status === 'pending') await toProcessing(run, attempt);
    // Only when it moved: most polls of a long render see the same number, and the write is per poll.
    if (Math.min(99, Math.floor(status.progress)) > task.progress) await updateProgress(ctx.db, task.id, status.progress);
    return wait('poll', pollDelayMs(adapter.channel, Date.now() - attempt.createdAt.getTime()));
  }
  if (status.state === 'failed') {
    if (status.error.kind === 'violation') return violation(run, attempt, status.error);
    return nextChannel(run, attempt, status.error);
  }
  if (status.outputs.length === 0) return noResult(run, attempt, new UpstreamError('unusable', 'the provider reported success without a file'));
  const succeeded = await setAttemptStatus(ctx.db, attempt, 'succeeded');
  return collect(run, succeeded, { run, attempt: succeeded, adapter }, status.outputs);
}

/** A resumed attempt whose render had succeeded: ask for its outputs again, then download them. */
export async function collectStep(input: StepInput): Promise<StepOutcome> {
  const { run, attempt, adapter } = input;
  let status;
  try {
    status = await adapter.poll(attempt.upstreamId!);
  } catch (e) {
    const err = adapter.classifyError(e, 'status');
    if (err.kind !== 'transient') return noResult(run, attempt, err);
    return retryCollect(run, attempt, err);
  }
  if (status.state !== 'succeeded' || status.outputs.length === 0)
    return noResult(run, attempt, new UpstreamError('unusable', `the provider no longer offers the result (${status.state})`));
  return collect(run, attempt, input, status.outputs);
}

function retryCollect(run: TaskRun, attempt: Attempt, err: UpstreamError): Promise<StepOutcome> | StepOutcome {
  const n = run.transientErrors + 1;
  if (n > run.ctx.config.WORKER_MAX_TRANSIENT_ERRORS) return noResult(run, attempt, err);
  // The attempt stays `succeeded`, so the resumed job comes back to the download.
  return wait('poll', backoffMs(n, err.retryAfterMs), n);
}

async function collect(run: TaskRun, attempt: Attempt, { adapter }: StepInput, outputs: ResultRef[]): Promise<StepOutcome> {
  const { ctx, task, spec } = run;
  const urls: string[] = [];
  let open: ResultFile | undefined;
  try {
    for (const [i, ref] of outputs.entries()) {
      open = await adapter.fetchResult(ref);
      if (!open.contentType.startsWith(`${spec.type}/`))
        throw new UpstreamError('unusable', `download: expected a ${spec.type}, got ${open.contentType}`);
      // Stable keys: a retried download overwrites the earlier try instead of adding files.
      const key = resultKey(task.id, i, open.contentType);
      const stored = await ctx.storage.put(key, open.stream, open.contentType);
      if (stored.bytes === 0) throw new UpstreamError('unusable', 'download: the result file is empty');
      urls.push(publicFileUrl(ctx.config, key));
    }
  } catch (e) {
    // An unread response body holds its socket until the download timer fires: close it now.
    open?.stream.destroy();
    // Storage failures (disk full, permissions) count like transient download errors: retried a
    // few times, then the task fails with no_result ("could not be saved", spec 7.2).
    const err = isUpstreamError(e) ? e : adapter.classifyError(e, 'download');
    if (err.kind !== 'transient') return noResult(run, attempt, err);
    return retryCollect(run, attempt, err);
  }
  await settleCompleted(ctx, task.id, urls, attempt.channelId);
  await closeAttempt(run.ctx, attempt, 'completed');
  return settled;
}

export const newAttemptId = () => newId('att');
