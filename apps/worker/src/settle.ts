// The worker's terminal moves: the shared settle path (@mediagen/settle), plus this process's
// step counters for its health endpoint.
import type { FailureCode, SettledTask } from '@mediagen/db';
import * as shared from '@mediagen/settle';
import type { WorkerContext } from './context';

export async function settleCompleted(ctx: WorkerContext, taskId: string, resultUrls: string[], channel?: string, resultBytes?: number): Promise<SettledTask | null> {
  const won = await shared.settleCompleted(ctx, taskId, resultUrls, channel, resultBytes);
  if (won) ctx.stats.completed += 1;
  return won;
}

export async function settleFailed(ctx: WorkerContext, taskId: string, code: FailureCode, detail: shared.FailureDetail = {}): Promise<boolean> {
  const won = await shared.settleFailed(ctx, taskId, code, detail);
  if (won) ctx.stats.failed += 1;
  return won;
}
