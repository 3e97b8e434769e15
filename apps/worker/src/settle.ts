// The worker's terminal moves: the shared settle path (@mediagen/settle), plus this process's
// step counters for its health endpoint.
import type { FailureCode } from '@mediagen/db';
import * as shared from '@mediagen/settle';
import type { WorkerContext } from './context';

type AfterContext<F> = F extends (ctx: never, ...rest: infer R) => unknown ? R : never;

/** shared.settleCompleted, with its arguments after the context. */
export async function settleCompleted(ctx: WorkerContext, ...args: AfterContext<typeof shared.settleCompleted>): Promise<shared.CompletedSettlement> {
  const r = await shared.settleCompleted(ctx, ...args);
  if (r.task) ctx.stats.completed += 1;
  return r;
}

export async function settleFailed(ctx: WorkerContext, taskId: string, code: FailureCode, detail: shared.FailureDetail = {}): Promise<boolean> {
  const won = await shared.settleFailed(ctx, taskId, code, detail);
  if (won) ctx.stats.failed += 1;
  return won;
}
