// Fails tasks past their deadline (no result within TASK_TIMEOUT_MS -> timeout), refunding
// them in the settlement transaction. Jobs also check the deadline on every step; the sweep covers
// tasks whose job is asleep for long or was lost.
//
// The sweep cancels the upstream render itself (abandonAttempt): once the attempt is 'abandoned',
// the job's own next step sees a task failed elsewhere with no open attempt and has nothing left
// to cancel, so a sweep that won the race against the job's deadline step left the render running
// (and billing) upstream.
//
// Each task is settled on its own: one whose settlement throws (a poison row, a constraint, a lost
// connection) is logged and skipped for this run, and never stops the tasks behind it.
import { latestAttempt, overdueTaskIds } from '@mediagen/db';
import { abandonAttempt } from './upstream-calls';
import type { WorkerContext } from './context';
import { settleFailed } from './settle';

const BATCH = 500;

export async function sweepTimeouts(ctx: WorkerContext): Promise<number> {
  let failed = 0;
  const skipped: string[] = [];
  for (;;) {
    const due = await overdueTaskIds(ctx.db, new Date(), BATCH, skipped);
    for (const id of due) {
      try {
        if (!(await settleFailed(ctx, id, 'timeout'))) continue;
        failed += 1;
      } catch (err) {
        skipped.push(id);
        ctx.log.error({ taskId: id, err: (err as Error).message }, 'timeout sweep could not settle this task; skipped until the next run');
        continue;
      }
      try {
        const attempt = await latestAttempt(ctx.db, id);
        if (attempt) await abandonAttempt(ctx, attempt, 'timeout');
      } catch (err) {
        ctx.log.warn({ taskId: id, err: (err as Error).message }, 'timed-out task settled; its attempt was not closed');
      }
    }
    if (due.length < BATCH) return failed;
  }
}
