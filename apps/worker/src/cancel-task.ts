// Client cancels (POST /api/{type}/tasks/{taskId}/cancel, docs/api.md). The gateway settles a task
// that no upstream has accepted yet by itself; for a running render it marks the task
// cancel-requested (only when the channel's adapter can cancel) and the task's next step lands
// here: cancel upstream, then settle failed/cancelled with the refund, like any other failure.
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
  if (attempt && isOpenAttempt(attempt.status) && attempt.upstreamId) {
    const cancel = upstreamCancel(ctx.adapters.get(attempt.channelId));
    if (cancel) {
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
