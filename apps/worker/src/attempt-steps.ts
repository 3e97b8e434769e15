// The steps of one attempt on one channel: submit, poll, collect the result. Each step does a
// little work and says when to come back; no step waits for a render.
import { Attempt, AttemptStatus, finishAttempt, markAttemptSucceeded, markProcessing, newId, updateProgress } from '@mediagen/db';
import { capOutputs, openResult, RenderStatus, ResultRef, SubmitResult, UpstreamError, UpstreamUsage, isUpstreamError } from '@mediagen/providers';
import { publicFileUrl, resultKey } from '@mediagen/storage';
import { slotLeaseUntil } from './channel-slots';
import { observedDownload } from './channel-observer';
import type { WorkerContext } from './context';
import { type AttemptStep, decideOnError } from './error-outcomes';
import { pollDelayMs } from './schedule';
import { settleCompleted, settleFailed } from './settle';
import { type ClaimedDownloads, pollHintOf, settled, slotWait, StepInput, StepOutcome, TaskRun, wait } from './task-run';
import { takeClaimed, takeEarlyStatus } from './early-status';
import { recordRender } from './render-ids';
import { beforeSubmit, countMargin, marksAtOnce, recordRenderUsage, renderRequest, submitEnded, type SubmitReadiness } from './upstream-calls';
import { noteUnknownModel } from './unknown-model';

/** Ends an attempt and gives its channel slot back. */
export async function closeAttempt(ctx: WorkerContext, attempt: Attempt, status: AttemptStatus, err?: UpstreamError): Promise<Attempt> {
  const done = await finishAttempt(ctx.db, attempt, status, err?.kind, err?.message);
  await ctx.slots.release(attempt.channelId, attempt.taskId);
  return done;
}

/**
 * Acts on an upstream failure at `step` as the table in error-outcomes.ts says: retry after a
 * backoff, move on to the next channel, render again after a lost render, or settle the task.
 */
async function onError(run: TaskRun, attempt: Attempt, step: AttemptStep, err: UpstreamError): Promise<StepOutcome> {
  const action = decideOnError(step, err, run.transientErrors, run.ctx.config.WORKER_MAX_TRANSIENT_ERRORS);
  switch (action.kind) {
    case 'retry':
      return wait(action.step, action.delayMs, action.transientErrors, action.step === 'poll' ? pollHintOf(run, attempt) : undefined);
    case 'model-unavailable': {
      // This channel is skipped for the upstream model from now on (unknown-model.ts).
      const adapter = run.ctx.adapters.get(attempt.channelId);
      if (adapter) await noteUnknownModel(run.ctx, run.task.id, adapter, run.spec, action.err);
      return nextChannel(run, attempt, action.err);
    }
    case 'next-channel':
      return nextChannel(run, attempt, action.err);
    case 'lost':
      return lostRender(run, attempt, action.err);
    case 'violation':
      return violation(run, attempt, action.err);
    case 'no-result':
      return noResult(run, attempt, action.err);
    default:
      return unreachable(action);
  }
}

const unreachable = (x: never): never => {
  throw new Error(`unhandled case ${JSON.stringify(x)}`);
};

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

/** The upstream forgot the render: closed as `lost`; run-task.ts gives it one fresh attempt on the same channel. */
const lostRender = async (run: TaskRun, attempt: Attempt, err: UpstreamError): Promise<StepOutcome> => {
  run.ctx.log.warn({ taskId: run.task.id, channel: attempt.channelId, attemptNo: attempt.attemptNo, upstreamId: attempt.upstreamId, err: err.message }, 'upstream render lost');
  return { kind: 'next-channel', attempt: await closeAttempt(run.ctx, attempt, 'lost', err) };
};

const noResult = async (run: TaskRun, attempt: Attempt, err: UpstreamError): Promise<StepOutcome> => {
  await settleFailed(run.ctx, run.task.id, 'no_result', { cause: err.message, channel: attempt.channelId });
  await closeAttempt(run.ctx, attempt, 'no_result', err);
  return settled;
};

/** pending -> processing, logged once by whichever step wins the move. */
async function toProcessing(run: TaskRun, attempt: Attempt): Promise<void> {
  if (await markProcessing(run.ctx.db, run.task.id)) processingLogged(run, attempt);
}

const processingLogged = (run: TaskRun, attempt: Attempt) =>
  run.ctx.log.info({ taskId: run.task.id, accountId: run.task.accountId, channel: attempt.channelId, attemptNo: attempt.attemptNo }, 'task processing');

export async function submitStep({ run, attempt, adapter }: StepInput): Promise<StepOutcome> {
  const { ctx, task } = run;
  // Resumed attempts hold their slot already (acquire is idempotent per task); a new attempt's
  // step has just acquired it.
  if (run.slotHeldOn !== adapter.channel.id && !(await ctx.slots.acquire(adapter.channel, task.id, slotLeaseUntil(run.task.deadlineAt))))
    return { kind: 'next', next: slotWait(run) };
  // pending -> processing is done before the upstream call leaves or beside it (an answers-at-once
  // submit waits for every write ahead of the render), and before the step goes on. When the step
  // goes straight to the sent mark (a new attempt) the move is part of that statement, in front of
  // the send like the mark itself: its failure fails the mark, and nothing is sent. Otherwise (an
  // earlier send to wait for or search) it runs beside the upstream call and never fails the step:
  // once a render may have started, retrying the step could render twice.
  const startWithMark = task.status === 'pending' && marksAtOnce(attempt, adapter);
  const processing =
    task.status === 'pending' && !startWithMark
      ? toProcessing(run, attempt).catch((err: Error) => ctx.log.warn({ taskId: task.id, err: err.message }, 'task not marked processing'))
      : null;
  const req = renderRequest(run, attempt, adapter);
  let submitted: SubmitResult | undefined;
  let sent: Attempt | undefined;
  let ready: SubmitReadiness | undefined;
  let failure: unknown;
  try {
    ready = await beforeSubmit(ctx, attempt, adapter, req, startWithMark);
    if ((ready.kind === 'send' || ready.kind === 'stopped') && ready.started) processingLogged(run, attempt);
    if (ready.kind === 'send') {
      sent = ready.attempt;
      ctx.stats.submits += 1;
      submitted = await adapter.submit({ ...req, signal: ready.signal });
    }
  } catch (e) {
    failure = e;
  }
  await processing;
  switch (ready?.kind) {
    case 'adopted':
      await recordRender(ctx, attempt, adapter, ready.upstreamId);
      return wait('poll', 0);
    case 'in-flight':
      return wait('submit', ready.openMs, run.transientErrors);
    case 'stopped':
      return wait('submit', 0, run.transientErrors); // a cancel came first: the next step settles
    case 'send':
    case undefined: // beforeSubmit failed: handled with the submit's failure below
      break;
    default:
      return unreachable(ready);
  }
  if (!submitted) {
    // Our request is over, unanswered: a retry need not wait for its deadline.
    if (sent) await submitEnded(ctx, sent);
    return onError(run, attempt, 'submit', adapter.classifyError(failure, 'submit'));
  }
  const { status, upstreamId } = submitted;
  if (status?.state === 'succeeded' && status.outputs.length > 0) {
    // A synchronous upstream answered with the finished render. Its id, usage and `succeeded` go in
    // one write (the compare-and-set of recordRender) that runs beside the download: the id must
    // be durable whatever happens to the file. collect() waits for it before the task settles,
    // and drops the file if the attempt turned out to name another render.
    const recorded = recordRender(ctx, sent ?? attempt, adapter, upstreamId, { succeeded: { usage: status.usage } });
    recorded.catch(() => undefined); // awaited in collect()
    const succeeded: Attempt = { ...(sent ?? attempt), upstreamId, status: 'succeeded' };
    return collect(run, succeeded, { run, attempt: succeeded, adapter }, status.outputs, { kind: 'beside', recorded }, status.usage);
  }
  // Durable before the job moves on: from here a resumed job polls this render. Null: the attempt
  // names another render or was closed meanwhile (this one was cancelled); the next run follows the row.
  const running = await recordRender(ctx, sent ?? attempt, adapter, upstreamId, !!status);
  if (!running) return wait('poll', 0);
  // Synchronous upstreams answered with the finished render (or its failure): no poll.
  if (status) return afterStatus({ run, attempt: running, adapter }, status);
  return wait('poll', adapter.channel.poll.firstMs, 0, pollHintOf(run, running));
}

export async function pollStep({ run, attempt, adapter }: StepInput): Promise<StepOutcome> {
  const { ctx, task } = run;
  // The read this step started beside loadTask, when the rows confirm it is this attempt's (counted then).
  const early = takeEarlyStatus(run, attempt);
  if (!early) ctx.stats.polls += 1;
  let status;
  try {
    status = await (early?.status ?? adapter.poll(attempt.upstreamId!, { spec: run.spec, outputSeconds: run.outputSeconds }));
  } catch (e) {
    const err = adapter.classifyError(e, 'status');
    // An answer no source describes is no outage: logged each time; only such answers spend a
    // poll's transient budget (error-outcomes.ts).
    if (err.unknownShape)
      ctx.log.warn(
        { taskId: task.id, channel: attempt.channelId, attemptNo: attempt.attemptNo, upstreamId: attempt.upstreamId, err: err.message, times: run.transientErrors + 1 },
        'upstream answer of unknown shape',
      );
    return onError(run, attempt, 'poll', err);
  }
  return afterStatus({ run, attempt, adapter }, status, early?.claimed);
}

/**
 * What a render's status means for the attempt: keep polling, move on, or collect its files.
 * `claimed`: downloads an upstream callback's claim started beside the status read (early-status.ts).
 */
async function afterStatus({ run, attempt, adapter }: StepInput, status: RenderStatus, claimed?: ClaimedDownloads): Promise<StepOutcome> {
  const { ctx, task } = run;
  if (status.state === 'running') {
    if (task.status === 'pending') await toProcessing(run, attempt);
    // Only when it moved: most polls of a long render see the same number, and the write is per poll.
    if (Math.min(99, Math.floor(status.progress)) > task.progress) await updateProgress(ctx.db, task.id, status.progress);
    // The channel's renders in flight are counted only where it limits status calls (one more
    // Redis round trip per poll there).
    const inFlight = adapter.channel.poll.maxPerSecond ? await ctx.slots.inUse(adapter.channel.id) : 1;
    return wait('poll', pollDelayMs(adapter.channel, Date.now() - attempt.createdAt.getTime(), inFlight), 0, pollHintOf(run, attempt));
  }
  if (status.state === 'failed') return onError(run, attempt, 'render', status.error);
  if (status.outputs.length === 0) {
    await recordRenderUsage(ctx, attempt, status.usage);
    return noResult(run, attempt, new UpstreamError('unusable', 'the provider reported success without a file'));
  }
  // The attempt's success and usage are written by the statement that completes the task, once the
  // file is stored (collect()): a run that dies before polls the still-running render again and
  // downloads to the same keys.
  return collect(run, attempt, { run, attempt, adapter }, status.outputs, { kind: 'polled' }, status.usage, claimed);
}

/**
 * The completing compare-and-set lost (the task failed meanwhile: timeout, another settlement): the
 * stored result belongs to a failed, refunded task, so it goes. The files route refuses results of
 * tasks that are not completed in any case; this only frees the space.
 */
async function dropResults(run: TaskRun, keys: string[]): Promise<void> {
  for (const key of keys) {
    await run.ctx.storage.delete(key).catch((err: Error) => run.ctx.log.warn({ taskId: run.task.id, key, err: err.message }, 'result of a task that did not complete not deleted'));
  }
}

/** A resumed attempt whose render had succeeded: ask for its outputs again, then download them. */
export async function collectStep(input: StepInput): Promise<StepOutcome> {
  const { run, attempt, adapter } = input;
  let status;
  try {
    status = await adapter.poll(attempt.upstreamId!, { spec: run.spec, outputSeconds: run.outputSeconds });
  } catch (e) {
    // The attempt stays `succeeded` through retries, so the resumed job comes back here.
    return onError(run, attempt, 'collect', adapter.classifyError(e, 'status'));
  }
  if (status.state !== 'succeeded' || status.outputs.length === 0)
    return noResult(run, attempt, new UpstreamError('unusable', `the provider no longer offers the result (${status.state})`));
  return collect(run, attempt, input, status.outputs, { kind: 'resumed' });
}

/**
 * How the attempt's success is written, which decides what collect() waits for and what the
 * completing statement checks (packages/db completeAttemptAndTask):
 * - `polled`: the attempt is `running`; its success and usage are written by the completing
 *   statement itself (or, when the download fails, by markAttemptSucceeded before the retry), so a
 *   settlement costs one commit, not three.
 * - `beside`: a synchronous answer's id, usage and `succeeded` (recordRender) run beside the
 *   download; they land before the task settles, so a closed attempt is never overwritten, and
 *   when the attempt turns out to name another render or closed (null) the file is dropped.
 * - `resumed`: an attempt already `succeeded` (collectStep).
 */
type SuccessWrite = { kind: 'polled' } | { kind: 'beside'; recorded: Promise<Attempt | null> } | { kind: 'resumed' };

/**
 * Downloads and stores the outputs, then settles the task and closes the attempt in one statement.
 * When that statement finds the attempt closed meanwhile (a cancel, the timeout sweep, another
 * run), the files are dropped and the next run follows the rows.
 */
async function collect(
  run: TaskRun,
  attempt: Attempt,
  { adapter }: StepInput,
  outputs: ResultRef[],
  write: SuccessWrite,
  usage?: UpstreamUsage,
  claimed?: ClaimedDownloads,
): Promise<StepOutcome> {
  const { ctx, task, spec } = run;
  const urls: string[] = [];
  const keys: string[] = [];
  let bytes = 0;
  // One deadline for every file of the attempt, body included (a dripping upstream is cut).
  const signal = AbortSignal.timeout(adapter.channel.timeouts.downloadMs);
  try {
    // Outputs are capped to what the task asked for (one video, one image); extras are never fetched.
    for (const [i, ref] of capOutputs(outputs, spec.type).entries()) {
      // A download the callback's claim started for this very URL, else one now: timed and counted
      // per channel until the file's first bytes passed the checks.
      const early = await takeClaimed(claimed, ref);
      if (early) ctx.stats.claimedKept += 1;
      const open = early ?? (await observedDownload(ctx.downloadTimers, adapter, () => openResult(ref, spec.type, ctx.download, signal)));
      try {
        // Stable keys: a retried download overwrites the earlier try instead of adding files.
        const key = resultKey(task.id, i, open.contentType);
        const stored = await ctx.storage.put(key, open.body, open.contentType);
        if (stored.bytes === 0) throw new UpstreamError('unusable', 'download: the result file is empty');
        keys.push(key);
        bytes += stored.bytes;
        urls.push(publicFileUrl(ctx.config, key));
      } finally {
        // An unread response body holds its socket until the deadline: close it now.
        open.body.close();
      }
    }
  } catch (e) {
    const succeeded = await succeededBeforeRetry(run, attempt, write, usage);
    if (!succeeded) return dropped(run, keys);
    // Storage failures (disk full, permissions) are classified like transient download errors:
    // retried a few times, then the task fails with no_result (the result could not be saved).
    return onError(run, succeeded, 'download', isUpstreamError(e) ? e : adapter.classifyError(e, 'download'));
  }
  const recorded = write.kind === 'beside' ? await kept(run, write.recorded, usage) : undefined;
  if (recorded === null) return dropped(run, keys);
  // A synchronous answer's attempt is `succeeded`, unless another run of the job had recorded the
  // same render as running (run-task.ts adopts a kept render id).
  const from = write.kind === 'polled' || recorded?.status === 'running' ? 'running' : 'succeeded';
  const r = await settleCompleted(ctx, task.id, { id: attempt.id, from, usage: from === 'running' ? usage : undefined }, urls, attempt.channelId, bytes);
  if (!r.attemptKept) return dropped(run, keys);
  if (write.kind === 'polled') countUsage(ctx, attempt, usage);
  if (r.task) countMargin(ctx, r.task, attempt.channelId, usage);
  else await dropResults(run, keys);
  await ctx.slots.release(attempt.channelId, attempt.taskId);
  return settled;
}

/**
 * A download or store failed: the attempt is left `succeeded` with its usage before the step is
 * retried (the retry collects again, collectStep). Null when the attempt had been closed meanwhile.
 */
async function succeededBeforeRetry(run: TaskRun, attempt: Attempt, write: SuccessWrite, usage?: UpstreamUsage): Promise<Attempt | null> {
  if (write.kind === 'beside') return kept(run, write.recorded, usage);
  if (write.kind === 'resumed') return attempt;
  const marked = await markAttemptSucceeded(run.ctx.db, attempt, usage);
  if (marked) countUsage(run.ctx, marked, usage);
  return marked;
}

/**
 * Whether the attempt's write that ran beside the download kept this render (the usage is counted
 * then, as recordRenderUsage would): the attempt as written, or null. Rethrows its failure
 * (UnrecordedRender: run-task.ts keeps the id in the job's data).
 */
async function kept(run: TaskRun, recorded: Promise<Attempt | null>, usage?: UpstreamUsage): Promise<Attempt | null> {
  const attempt = await recorded;
  if (attempt) countUsage(run.ctx, attempt, usage);
  return attempt;
}

function countUsage(ctx: WorkerContext, attempt: Attempt, usage?: UpstreamUsage): void {
  if (usage) ctx.metrics.upstream.usage.inc({ channel: attempt.channelId, units: usage.units }, usage.amount);
}

/** The attempt names another render or was closed: its files go, and the next run follows the row. */
async function dropped(run: TaskRun, keys: string[]): Promise<StepOutcome> {
  await dropResults(run, keys);
  return wait('poll', 0);
}

export const newAttemptId = () => newId('att');
