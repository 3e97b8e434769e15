// The `run-task` job: one task's state machine, advanced one short step per job run. Between steps
// the job sits in BullMQ's delayed set (job.moveToDelayed + DelayedError), so a render of minutes
// or hours holds no worker slot. Postgres (Task, TaskAttempt) is the durable state; the job payload
// is only a hint, so a job resumed after a crash picks up wherever the rows say.
import { DelayedError, Job, UnrecoverableError } from 'bullmq';
import { parseStoredTaskParams } from '@mediagen/catalog';
import { pickChannel } from '@mediagen/channel-health';
import { ableToRender, type Channel, channelsFor, UpstreamError } from '@mediagen/providers';
import { delayStep, RUNNING_TASK_PRIORITY, RunTaskPayload, runTaskPayloadSchema, takeWake } from '@mediagen/queue';
import { Attempt, isOpenAttempt, loadTask, lostAttemptsOn, setAttemptStatus, startAttempt, triedChannels } from '@mediagen/db';
import { closeAttempt, collectStep, newAttemptId, pollStep, submitStep } from './attempt-steps';
import { slotLeaseUntil } from './channel-slots';
import type { WorkerContext } from './context';
import { backoffMs } from './schedule';
import { settleFailed } from './settle';
import { runCancel } from './cancel-task';
import { currentStepScope, runInStepScope } from './step-scope';
import { EarlyStatus, Next, slotWait, StepOutcome, TaskRun } from './task-run';
import { releaseClaimed, startEarlyStatus } from './early-status';
import { UnrecordedRender, writeKeptRender } from './render-ids';
import { abandonAttempt } from './upstream-calls';
import { needsPromptRewrite, rewritePrompt } from './prompt-rewrite';
import { usableChannels } from './unknown-model';

export function createRunTaskProcessor(ctx: WorkerContext) {
  return async function runTask(job: Job<RunTaskPayload>, token?: string): Promise<string> {
    ctx.stats.steps += 1;
    ctx.metrics.tasks.steps.inc();
    const parsed = runTaskPayloadSchema.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`invalid run-task payload: ${parsed.error.message}`);
    const payload = parsed.data;
    let next: Next;
    // A render whose id Postgres would not take stays in the job's data until a run writes it.
    let kept = payload.render;
    // The submit's request id goes on every line this step logs, so a task can be followed from
    // the gateway's request line to its settlement.
    const stepCtx = payload.requestId ? { ...ctx, log: ctx.log.child({ reqId: payload.requestId }) } : ctx;
    let early: EarlyStatus | undefined;
    try {
      next = await runInStepScope({ taskId: payload.taskId }, () => advanceTask(stepCtx, payload, (early = startEarlyStatus(stepCtx, payload))));
      kept = undefined;
    } catch (err) {
      if (err instanceof UnrecordedRender) kept = err.render;
      // Our own infrastructure failed (database, storage, Redis). Nothing is lost: the rows say
      // where the task is, so the same step simply runs again after a backoff.
      const n = payload.transientErrors + 1;
      stepCtx.log.warn({ taskId: payload.taskId, err: (err as Error).message, retry: n }, 'task step failed; will retry');
      next = { at: Date.now() + backoffMs(n), step: payload.step, transientErrors: n, poll: payload.poll };
    } finally {
      // Claimed downloads the step did not keep (early-status.ts).
      releaseClaimed(early);
    }
    if (!next) return 'settled';
    // The next step's data and the delay in one Redis script (packages/queue delayStep); from the
    // first poll on, the job also waits behind new tasks' first steps (RUNNING_TASK_PRIORITY). A
    // callback's claim is not carried on: it was about this step's read.
    const data: RunTaskPayload = {
      taskId: payload.taskId, step: next.step, transientErrors: next.transientErrors, requestId: payload.requestId,
      ...(kept ? { render: kept } : {}), ...(next.step === 'poll' && next.poll ? { poll: next.poll } : {}),
    };
    await delayStep(job, next.at, token, data, next.step === 'poll' ? RUNNING_TASK_PRIORITY : undefined);
    ctx.stats.delayed += 1;
    // An upstream callback that came in while this step ran could not promote a running job; it
    // left a flag instead (packages/queue wakeTask). Only waits for a render can be cut short.
    if (next.step === 'poll') await takeWake(ctx.queue, ctx.redis, job);
    throw new DelayedError();
  };
}

/** `early`: the status read started beside loadTask from the job's hint (early-status.ts); only the first pass starts one. */
export async function advanceTask(ctx: WorkerContext, payload: RunTaskPayload, early: EarlyStatus | undefined = startEarlyStatus(ctx, payload)): Promise<Next> {
  const task = await loadTask(ctx.db, payload.taskId);
  const scope = currentStepScope();
  if (scope && task) scope.accountId = task.accountId;
  if (!task) {
    ctx.log.warn({ taskId: payload.taskId }, 'job for a task that does not exist; dropped');
    return null;
  }
  const attempt = payload.render ? await writeKeptRender(ctx, task.attempt, payload.render) : task.attempt;
  const stored = parseStoredTaskParams(task.params);
  if (!stored.ok) {
    // No release of ours writes such a row; running it would send garbage upstream. Fail it,
    // refunded, instead of retrying a step that can never succeed.
    ctx.log.error({ taskId: task.id, err: stored.error }, 'stored task params are invalid; task failed');
    await settleFailed(ctx, task.id, 'generation_failed', { cause: 'invalid stored params' });
    return null;
  }
  const params = stored.params;
  const run: TaskRun = { ctx, task, spec: params, outputSeconds: params.outputSeconds ?? null, transientErrors: payload.transientErrors, early };

  if (task.status === 'completed' || task.status === 'failed') {
    // Settled elsewhere (timeout sweep, a client's cancel, a racing worker): stop the upstream
    // render where the protocol can, tidy the attempt and free its slot.
    if (attempt && task.status === 'failed') await abandonAttempt(ctx, attempt, 'task failed elsewhere');
    else if (attempt && isOpenAttempt(attempt.status)) await closeAttempt(ctx, attempt, attempt.status === 'succeeded' ? 'completed' : 'abandoned');
    return null;
  }
  if (Date.now() >= task.deadlineAt.getTime()) {
    await settleFailed(ctx, task.id, 'timeout');
    if (attempt) await abandonAttempt(ctx, attempt, 'timeout');
    return null;
  }
  if (task.cancelRequested) return runCancel(ctx, task, payload.transientErrors);
  // optimize_prompt: decided once, before the first submit; every attempt sends the decided prompt.
  if (needsPromptRewrite(task, params)) {
    await rewritePrompt(ctx, task, params);
    // The rewrite took a while: the task may have been cancelled or timed out meanwhile. Start over
    // from the rows, which now hold the decision (so this branch is not taken again).
    return advanceTask(ctx, { ...payload, poll: undefined });
  }
  if (task.effectivePrompt !== null && run.spec.type === 'video') run.spec = { ...run.spec, prompt: task.effectivePrompt };
  const next = await advanceAttempts(run, attempt);
  // Wake up at the deadline at the latest, so a task times out even without the sweep.
  return next && { ...next, at: Math.min(next.at, task.deadlineAt.getTime() + 50) };
}

/** Runs the current attempt's step; after a failed attempt, starts the next channel at once. */
async function advanceAttempts(run: TaskRun, current: Attempt | null): Promise<Next> {
  const { ctx, task, spec } = run;
  const order = channelsFor(ctx.channels, task.model, spec.type === 'video' ? spec.tier : null, spec.type === 'video' ? spec.variant : null);
  let attempt = current;
  for (;;) {
    if (attempt?.status === 'lost') {
      // The upstream forgot the render (not a failed render): one fresh attempt on the same
      // channel, a new TaskAttempt row; a second loss there counts as that channel failing.
      const channel = order.find((c) => c.id === attempt!.channelId);
      if (channel && (await lostAttemptsOn(ctx.db, task.id, channel.id)) <= 1) {
        const started = await startOn(run, channel, attempt.attemptNo + 1, 'attempt started again after a lost render');
        if (!started) return slotWait(run);
        attempt = started;
      }
    }
    if (!attempt || attempt.status === 'failed' || attempt.status === 'abandoned' || attempt.status === 'lost') {
      const attemptNo = (attempt?.attemptNo ?? 0) + 1;
      // Each channel once per task, cheapest first, skipping channels whose breaker is open
      // (packages/channel-health).
      const tried = attempt ? await triedChannels(ctx.db, task.id) : new Set<string>();
      // Only channels able to render this task's options (a channel may serve part of a model),
      // and not those whose upstream said it does not know the model (unknown-model.ts).
      const { able, unable } = ableToRender(order, ctx.adapters, spec, run.outputSeconds);
      const { usable, state } = await usableChannels(ctx, able, spec);
      const pick = await pickChannel(usable, tried, ctx.health, task.id, state);
      if (!pick) {
        if (usable.length === 0)
          ctx.log.warn(
            { taskId: task.id, model: task.model, unable, unavailable: able.filter((c) => !usable.includes(c)).map((c) => c.id) },
            'no channel can render this task\'s options',
          );
        // generation_failed only after every available channel was tried.
        await settleFailed(ctx, task.id, 'generation_failed', { channelsTried: attempt?.attemptNo ?? 0 });
        return null;
      }
      const { channel } = pick;
      if (pick.moved) {
        ctx.metrics.channels.breakerTransitions.inc({ channel: channel.id, state: pick.moved });
        ctx.log.info({ channel: channel.id, taskId: task.id }, 'channel cool-down over; this task probes it');
      }
      const started = await startOn(run, channel, attemptNo, 'attempt started', { admission: pick.admission });
      if (!started) return slotWait(run);
      attempt = started;
    }
    const adapter = ctx.adapters.get(attempt.channelId);
    let outcome: StepOutcome;
    if (!adapter) {
      // The channel left the configuration while this attempt ran: its render cannot be reached.
      outcome = { kind: 'next-channel', attempt: await closeAttempt(ctx, attempt, 'failed', new UpstreamError('failed', `channel ${attempt.channelId} is not configured`)) };
    } else if (attempt.status === 'submitting') outcome = await submitStep({ run, attempt, adapter });
    else if (attempt.status === 'running') outcome = await pollStep({ run, attempt, adapter });
    else if (attempt.status === 'succeeded') outcome = await collectStep({ run, attempt, adapter });
    else {
      // A final attempt on an unsettled task. Steps settle the task before closing the attempt, so
      // this means a settlement was lost; settle again from what the attempt recorded (a CAS, so safe).
      if (attempt.status === 'violation') await settleFailed(ctx, task.id, 'content_violation');
      else if (attempt.status === 'no_result') await settleFailed(ctx, task.id, 'no_result');
      else {
        // 'completed' without a completed task cannot be repaired from the row (the URLs live in
        // the task); downloading again is safe because result keys are stable.
        attempt = await setAttemptStatus(ctx.db, attempt, 'succeeded');
        continue;
      }
      return null;
    }
    if (outcome.kind === 'next') return outcome.next;
    attempt = outcome.attempt;
  }
}

/**
 * Takes a slot on `channel` and starts attempt `attemptNo` of the task there, its transient count
 * back to zero; null when the channel has no free slot (nothing started). The slot is the new
 * attempt's, so its submit step does not ask again.
 */
async function startOn(run: TaskRun, channel: Channel, attemptNo: number, message: string, fields: Record<string, unknown> = {}): Promise<Attempt | null> {
  const { ctx, task } = run;
  if (!(await ctx.slots.acquire(channel, task.id, slotLeaseUntil(task.deadlineAt)))) return null;
  const attempt = await startAttempt(ctx.db, newAttemptId(), task.id, attemptNo, channel.id);
  run.transientErrors = 0;
  run.slotHeldOn = channel.id;
  ctx.log.info({ taskId: task.id, accountId: task.accountId, channel: channel.id, attemptNo, ...fields }, message);
  return attempt;
}
