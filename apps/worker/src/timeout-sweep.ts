// Fails tasks past their deadline (spec 3: no result within TASK_TIMEOUT_MS -> timeout), refunding
// them in the settlement transaction. Jobs also check the deadline on every step; the sweep covers
// tasks whose job is asleep for long or was lost.
import { latestAttempt, overdueTaskIds } from '@mediagen/db';
import { closeAttempt } from './attempt-steps';
import type { WorkerContext } from './context';
import { settleFailed } from './settle';

const BATCH = 500;

export async function sweepTimeouts(ctx: WorkerContext): Promise<number> {
  let failed = 0;
  for (;;) {
    const due = await overdueTaskIds(ctx.db, new Date(), BATCH);
    for (const id of due) {
      if (!(await settleFailed(ctx, id, 'timeout'))) continue;
      failed += 1;
      const attempt = await latestAttempt(ctx.db, id);
      if (attempt && ['submitting', 'running', 'succeeded'].includes(attempt.status)) await closeAttempt(ctx, attempt, 'abandoned');
    }
    if (due.length < BATCH) return failed;
  }
}
