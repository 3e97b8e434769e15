// The parts of an attempt that depend on what its upstream can do (adapter capabilities): the
// request with its references and callback URL, what to do before submitting again, cancelling a
// render we gave up on, and recording what a render cost.
import { abandonOpenAttempt, Attempt, markSubmitEnded, markSubmitSent, markSubmitSentAndStart, recordUsage, SettledTask, taskOfUpstreamRender } from '@mediagen/db';
import { callbackSecret, callbackUrl, ChannelAdapter, RenderRequest, renderReferences, UpstreamUsage } from '@mediagen/providers';
import type { WorkerContext } from './context';
import { referenceLoader } from './reference-bytes';
import type { TaskRun } from './task-run';

/** The adapter's view of this attempt's render. */
export function renderRequest(run: TaskRun, attempt: Attempt, adapter: ChannelAdapter): RenderRequest {
  const { ctx, task } = run;
  return {
    taskId: task.id,
    attemptId: attempt.id,
    spec: run.spec,
    outputSeconds: run.outputSeconds,
    references: renderReferences(run.spec, referenceLoader(ctx)),
    callbackUrl:
      adapter.capabilities.callbacks === 'none' ? undefined : callbackUrl(ctx.config.PUBLIC_BASE_URL, callbackSecret(ctx.config), attempt.channelId, task.id),
    ...(attempt.submitSentAt ? { submitSentAt: attempt.submitSentAt } : {}),
  };
}

/**
 * Slack on a submit's deadline as another run sees it: the deadline's timer is armed before the
 * sent mark's write (so the database's deadline falls after it), and a busy event loop fires it late.
 */
export const SUBMIT_SLACK_MS = 2_000;

/** The longest a submit of this request may be open: its call's deadline. */
export const submitDeadlineMs = (adapter: ChannelAdapter, req: RenderRequest): number =>
  adapter.submitDeadlineMs?.(req) ?? adapter.channel.timeouts.submitMs;

export type SubmitReadiness =
  /** A render found upstream for this attempt: write its id, send nothing. */
  | { kind: 'adopted'; upstreamId: string }
  /** An earlier submit of this attempt may still be open (another run of the job): send nothing before its deadline. */
  | { kind: 'in-flight'; openMs: number }
  /** Send, with `signal` as the submit's hard deadline. `started`: the sent mark moved the task to processing (startsWithMark). */
  | { kind: 'send'; attempt: Attempt; signal?: AbortSignal; started?: boolean }
  /** The task has a cancel request (or settled) and nothing was sent: send nothing, the next step settles it. */
  | { kind: 'stopped'; started?: boolean };

/**
 * Whether beforeSubmit goes straight to the sent mark (no earlier send to wait for or search), so
 * that a pending task's move to processing can ride on the mark's statement (markSubmitSentAndStart).
 */
export const marksAtOnce = (attempt: Attempt, adapter: ChannelAdapter): boolean => adapter.capabilities.idempotentSubmit || !attempt.submitSentAt;

/**
 * Before a submit on a channel that does not deduplicate submits. Each send is marked durably
 * before the request leaves, with its deadline (`submitOpenUntil`); the worker's own deadline
 * (`signal`) fires before that, and nothing is sent or taken after it. When a submit was sent before:
 * - while its deadline has not passed, another run may still be waiting for its answer (a job
 *   handed over after its lock lapsed during a slow submit): nothing is sent, the step comes back
 *   after the deadline. The run that sent it clears the deadline when it sees it end unanswered.
 * - after it, no answer of that send can be taken any more. The upstream may still have started a
 *   render (a crash, a timeout, a lost answer): the adapter looks for it where its protocol allows
 *   (metadata / client reference) and the attempt adopts it. Without such a search the submit goes
 *   out again, counted as `blind` (a possible double render, docs/providers.md).
 */
export async function beforeSubmit(ctx: WorkerContext, attempt: Attempt, adapter: ChannelAdapter, req: RenderRequest, startTask = false): Promise<SubmitReadiness> {
  const channel = attempt.channelId;
  if (adapter.capabilities.idempotentSubmit) {
    // A repeated send is harmless here, but the mark still orders the send with a client's cancel.
    return mark(ctx, attempt, submitDeadlineMs(adapter, req) + SUBMIT_SLACK_MS, startTask);
  }
  if (attempt.submitSentAt) {
    if (attempt.submitOpenMs && attempt.submitOpenMs > 0) {
      ctx.metrics.upstream.resubmits.inc({ channel, how: 'in_flight' });
      ctx.log.info(
        { taskId: attempt.taskId, channel, attemptNo: attempt.attemptNo, openMs: attempt.submitOpenMs },
        'an earlier submit of this attempt may still be in flight; not sent again before its deadline',
      );
      return { kind: 'in-flight', openMs: attempt.submitOpenMs };
    }
    const found = adapter.capabilities.findOrphan && adapter.findOrphan ? await searchOrphan(ctx, attempt, adapter, req) : 'unsearched';
    if (found !== null && found !== 'unsearched') {
      ctx.metrics.upstream.resubmits.inc({ channel, how: 'orphan_found' });
      ctx.log.info({ taskId: attempt.taskId, channel, attemptNo: attempt.attemptNo, upstreamId: found }, 'earlier submit found upstream; adopted');
      return { kind: 'adopted', upstreamId: found };
    }
    if (found === null) ctx.metrics.upstream.resubmits.inc({ channel, how: 'orphan_none' });
    else {
      ctx.metrics.upstream.resubmits.inc({ channel, how: 'blind' });
      ctx.log.warn(
        { taskId: attempt.taskId, channel, attemptNo: attempt.attemptNo, sentAt: attempt.submitSentAt },
        'submitting again on a channel without idempotent submits: the earlier submit may have started a render (possible double render)',
      );
    }
  }
  const deadlineMs = submitDeadlineMs(adapter, req);
  // Armed before the write: it fires before the deadline the database records.
  const signal = AbortSignal.timeout(deadlineMs);
  return mark(ctx, attempt, deadlineMs + SUBMIT_SLACK_MS, startTask, signal);
}

/** The sent mark; `startTask` (only where marksAtOnce holds): the same statement moves the pending task to processing. */
async function mark(ctx: WorkerContext, attempt: Attempt, openMs: number, startTask: boolean, signal?: AbortSignal): Promise<SubmitReadiness> {
  const { sent, started } = startTask ? await markSubmitSentAndStart(ctx.db, attempt, openMs) : { sent: await markSubmitSent(ctx.db, attempt, openMs), started: false };
  return sent ? { kind: 'send', attempt: sent, started, ...(signal ? { signal } : {}) } : { kind: 'stopped', started };
}

/** The run that sent a submit saw it end unanswered: a retry need not wait for its deadline. Best effort. */
export async function submitEnded(ctx: WorkerContext, attempt: Attempt): Promise<void> {
  await markSubmitEnded(ctx.db, attempt).catch((err: Error) =>
    ctx.log.warn({ taskId: attempt.taskId, channel: attempt.channelId, err: err.message }, 'end of a submit not recorded; a retry waits for its deadline'),
  );
}

/**
 * The adapter's search for the lost submit's render: its upstream id, null when the upstream has
 * none for this attempt, or 'unsearched' when the search cannot run on this upstream (it answered
 * that it has no such list, or a list we cannot read): then the submit goes out blind, as without
 * a search. A transient failure is thrown, so the step searches again after a backoff rather than
 * risk a double render. A render another task's attempt already recorded is not this attempt's.
 */
async function searchOrphan(ctx: WorkerContext, attempt: Attempt, adapter: ChannelAdapter, req: RenderRequest): Promise<string | null | 'unsearched'> {
  let found: string | null;
  try {
    found = await adapter.findOrphan!(req);
  } catch (e) {
    const err = adapter.classifyError(e, 'submit');
    // Unreachable: the submit would not get through either; the step moves on from the throw.
    if (err.kind === 'transient' || err.kind === 'unsent') throw err;
    ctx.log.warn({ taskId: attempt.taskId, channel: attempt.channelId, err: err.message }, 'orphan search not possible on this upstream');
    return 'unsearched';
  }
  if (!found) return null;
  const owner = await taskOfUpstreamRender(ctx.db, attempt.channelId, found);
  if (owner && owner !== attempt.taskId) {
    ctx.log.warn({ taskId: attempt.taskId, channel: attempt.channelId, upstreamId: found, owner }, 'orphan search matched a render of another task; not adopted');
    return null;
  }
  return found;
}

/**
 * Ends the open attempt of a task that ended otherwise (timeout, failed elsewhere): closes it as
 * abandoned and, when this call is the one that closed it (a compare-and-set: the sweep and the
 * task's job can both get here), asks the upstream to stop its render. Closed first so the cancel
 * is sent once: MiniMax deletes a task on a second DELETE, and a sweep that closed the attempt
 * without cancelling left the job nothing to cancel. Best effort, never fails the step.
 */
export async function abandonAttempt(ctx: WorkerContext, attempt: Attempt, why: string): Promise<void> {
  const closed = await abandonOpenAttempt(ctx.db, attempt);
  if (!closed) return;
  await ctx.slots.release(attempt.channelId, attempt.taskId);
  // A 'succeeded' render is finished upstream: nothing to stop. A 'submitting' one read before its
  // id was written may be running now: the returned row carries the id.
  if (attempt.status !== 'succeeded' && closed.upstreamId) await cancelUpstream(ctx, closed, closed.upstreamId, why);
}

async function cancelUpstream(ctx: WorkerContext, attempt: Attempt, upstreamId: string, why: string): Promise<void> {
  const adapter = ctx.adapters.get(attempt.channelId);
  if (!adapter?.capabilities.cancel || !adapter.cancel) return;
  try {
    await adapter.cancel(upstreamId);
    ctx.metrics.upstream.cancels.inc({ channel: attempt.channelId, result: 'sent' });
    ctx.log.info({ taskId: attempt.taskId, channel: attempt.channelId, upstreamId, why }, 'upstream render cancelled');
  } catch (err) {
    ctx.metrics.upstream.cancels.inc({ channel: attempt.channelId, result: 'failed' });
    ctx.log.warn({ taskId: attempt.taskId, channel: attempt.channelId, err: (err as Error).message }, 'upstream cancel failed');
  }
}

/** Stores what the upstream reported the render used (on the attempt) and counts it. */
export async function recordRenderUsage(ctx: WorkerContext, attempt: Attempt, usage: UpstreamUsage | undefined): Promise<void> {
  if (!usage) return;
  await recordUsage(ctx.db, attempt, usage);
  ctx.metrics.upstream.usage.inc({ channel: attempt.channelId, units: usage.units }, usage.amount);
}

/**
 * After a completion this worker won: revenue, upstream cost and margin of the model, when the cost
 * is known; model and price from the settling statement (no read back).
 */
export function countMargin(ctx: WorkerContext, t: Pick<SettledTask, 'model' | 'costCents'>, channel: string, usage: UpstreamUsage | undefined): void {
  if (usage?.costMicroUsd === undefined) return;
  const revenue = t.costCents * 10_000;
  ctx.metrics.upstream.revenueMicros.inc({ model: t.model }, revenue);
  ctx.metrics.upstream.costMicros.inc({ model: t.model, channel }, usage.costMicroUsd);
  // A gauge, so a loss shows as a negative margin.
  ctx.metrics.upstream.marginMicros.inc({ model: t.model }, revenue - usage.costMicroUsd);
}
