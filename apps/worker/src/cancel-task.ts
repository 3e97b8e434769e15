// Client cancels (POST /api/{type}/tasks/{taskId}/cancel, docs/api.md). The gateway settles a task
// that no upstream has accepted yet by itself; for a running render it marks the task
// cancel-requested (only when the channel's adapter can cancel) and the task's next step lands
// here: cancel upstream, then settle failed/cancelled with the refund, like any other failure.
// A submit that was sent counts as accepted by the upstream even before its id is known: it is
// never refunded as if nothing had started (docs/api.md, "Cancel"). Where the upstream offers no
// cancel, such a render carries on, completes and stays charged.
import { clearCancelRequest, isOpenAttempt, type TaskWithAttempt } from '@mediagen/db';
import { closeAttempt } from './attempt-steps';
import type { WorkerContext } from './context';
import { backoffMs } from './schedule';
import { settleFailed } from './settle';
import type { Next } from './task-run';
import { upstreamCancel } from './upstream-cancel';

export async function runCancel(ctx: WorkerContext, task: TaskWithAttempt, transientErrors: number): Promise<Next> {
  const attempt = task.attempt;
  if (attempt?.status === 'succeeded') {
    // The render is finished (and billed) upstream and its files are being collected: there is
    // nothing left to stop, and a provider's cancel here could delete the very result we fetch
    // (ModelArk deletes a finished task's record). Like a refused cancel: the task completes.
    ctx.log.info({ taskId: task.id, channel: attempt.channelId }, 'cancel of a finished render; collecting its result');
    await clearCancelRequest(ctx.db, task.id);
    return { at: Date.now(), step: 'poll', transientErrors: 0 };
  }
  if (attempt && isOpenAttempt(attempt.status) && (attempt.upstreamId || attempt.submitSentAt)) {
    const cancel = upstreamCancel(ctx.adapters.get(attempt.channelId));
    if (!cancel) {
      // Accepted (or maybe accepted) by an upstream that cannot stop it: the gateway answered
      // not_cancellable, and a request that slipped in while it decided is dropped here.
      ctx.log.info({ taskId: task.id, channel: attempt.channelId }, 'cancel of a render its upstream cannot stop; task continues');
      await clearCancelRequest(ctx.db, task.id);
      return { at: Date.now(), step: attempt.upstreamId ? 'poll' : 'submit', transientErrors: 0 };
    }
    if (!attempt.upstreamId && (attempt.submitOpenMs ?? 0) > 0) {
      // The submit may still be open in a run that lost its job (a lapsed lock): its answer can
      // still be recorded; come back once its deadline has passed.
      return { at: Date.now() + attempt.submitOpenMs!, step: 'poll', transientErrors };
    }
    if (attempt.upstreamId) {
      try {
        await cancel(attempt.upstreamId);
      } catch (e) {
        const err = ctx.adapters.get(attempt.channelId)!.classifyError(e, 'cancel');
        const n = transientErrors + 1;
        if (err.kind === 'transient' && n <= ctx.config.WORKER_MAX_TRANSIENT_ERRORS)
          return { at: Date.now() + backoffMs(n, err.retryAfterMs), step: 'poll', transientErrors: n };
        // The upstream refused (the render may have just finished): the task carries on and ends as
        // it ends; the client sees the outcome by polling.
        ctx.log.warn({ taskId: task.id, channel: attempt.channelId, err: err.message }, 'upstream cancel refused; task continues');
        await clearCancelRequest(ctx.db, task.id);
        return { at: Date.now(), step: 'poll', transientErrors: 0 };
      }
    }
  }
  await settleFailed(ctx, task.id, 'cancelled', { channel: attempt?.channelId });
  if (attempt && isOpenAttempt(attempt.status)) await closeAttempt(ctx, attempt, 'abandoned');
  return null;
}
