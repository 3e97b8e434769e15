// Re-enqueues unfinished tasks that have no live job: the gateway's enqueue failed after its commit,
// Redis lost its data (restart without persistence), or a job ended without settling its task.
// jobId = taskId makes enqueueing idempotent, so a reconciler racing a gateway does no harm.
import { unfinishedTaskIds } from '@mediagen/db';
import { enqueueTask, jobKey, QUEUES } from '@mediagen/queue';
import type { WorkerContext } from './context';

const BATCH = 500;

export interface ReconcileResult {
  checked: number;
  enqueued: number;
  errors: number;
}

export async function reconcile(ctx: WorkerContext): Promise<ReconcileResult> {
  const result: ReconcileResult = { checked: 0, enqueued: 0, errors: 0 };
  // Young tasks are skipped: their submit may still be between its commit and its enqueue.
  const createdBefore = new Date(Date.now() - ctx.config.RECONCILE_GRACE_MS);
  let cursor = '';
  for (;;) {
    const tasks = (await unfinishedTaskIds(ctx.db, createdBefore, cursor, BATCH)).map((id) => ({ id }));
    if (tasks.length === 0) return result;
    cursor = tasks[tasks.length - 1].id;
    result.checked += tasks.length;
    // One round trip per batch: a job hash has `timestamp` while it exists and `finishedOn` once it
    // completed or failed. Reading the hash directly keeps 10,000 in-flight tasks cheap to check.
    // (On a cluster every key of the queue shares its hash tag, see jobKey, so the pipeline stays on one node.)
    const pipe = ctx.redis.pipeline();
    for (const t of tasks) pipe.hmget(jobKey(ctx.redis, ctx.config.REDIS_PREFIX, QUEUES.tasks, t.id), 'timestamp', 'finishedOn');
    const answers = (await pipe.exec()) ?? [];
    for (const [i, t] of tasks.entries()) {
      const [err, fields] = answers[i] ?? [];
      if (err) continue;
      const [timestamp, finishedOn] = fields as (string | null)[];
      if (timestamp && !finishedOn) continue; // waiting, delayed or active: alive
      // One task at a time: a task that cannot be re-enqueued is logged and left for the next run,
      // and never stops the rest of the batch.
      try {
        if (finishedOn) {
          // A finished job blocks its jobId; remove it so the task gets a fresh one.
          const job = await ctx.queue.getJob(t.id);
          await job?.remove().catch(() => undefined);
        }
        await enqueueTask(ctx.queue, t.id);
        result.enqueued += 1;
        ctx.log.warn({ taskId: t.id, hadJob: !!finishedOn }, 'unfinished task had no live job; re-enqueued');
      } catch (e) {
        result.errors += 1;
        ctx.log.error({ taskId: t.id, err: (e as Error).message }, 'reconciler could not re-enqueue this task; left for the next run');
      }
    }
  }
}
