// The worker's terminal moves: the shared settle path (@mediagen/settle), plus this process's
// step counters for its health endpoint.
import type { CompletingAttempt, FailureCode, SettledTask } from '@mediagen/db';
import * as shared from '@mediagen/settle';
import type { WorkerContext } from './context';

export async function settleCompleted(
  ctx: WorkerContext,
  taskId: string,
  attempt: CompletingAttempt,
  resultUrls: string[],
  channel?: string,
  resultBytes?: number,
): Promise<{ attemptKept: boolean; task: SettledTask | null }> {
  const r = await shared.settleCompleted(ctx, taskId, attempt, resultUrls, channel, resultBytes);
  if (r.task) ctx.stats.completed += 1;
  return r;
}

export async function settleFailed(ctx: WorkerContext, taskId: string, code: FailureCode, detail: shared.FailureDetail = {}): Promise<boolean> {
  const won = await shared.settleFailed(ctx, taskId, code, detail);
  if (won) ctx.stats.failed += 1;
  return won;
}
