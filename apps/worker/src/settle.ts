// Terminal moves of a task, as the worker makes them: the settlement transaction (packages/db),
// then the task event for waiting gateways, then the channel slot is given back.
import { completeTask, failTask, FailureCode, RETRYABLE } from '@mediagen/db';
import type { WorkerContext } from './context';
import { failureMessage } from './failure-messages';

export async function settleCompleted(ctx: WorkerContext, taskId: string, resultUrls: string[]): Promise<boolean> {
  const won = await completeTask(ctx.db, taskId, resultUrls);
  if (won) {
    ctx.stats.completed += 1;
    await ctx.events.publish(taskId, 'completed');
  }
  ctx.log.info({ taskId, won, files: resultUrls.length }, 'task completed');
  return won;
}

export async function settleFailed(
  ctx: WorkerContext,
  taskId: string,
  code: FailureCode,
  detail: { channelsTried?: number; cause?: string } = {},
): Promise<boolean> {
  const won = await failTask(ctx.db, taskId, {
    errorCode: code,
    errorMessage: failureMessage(code, { channelsTried: detail.channelsTried, timeoutMs: ctx.config.TASK_TIMEOUT_MS }),
    retryable: RETRYABLE[code],
  });
  if (won) {
    ctx.stats.failed += 1;
    await ctx.events.publish(taskId, 'failed');
  }
  ctx.log.info({ taskId, code, won, cause: detail.cause }, 'task failed');
  return won;
}
