// Housekeeping on its own queue: the timeout sweep and the reconciler run as BullMQ job schedulers,
// so with several worker processes each run happens once, wherever a worker is free.
import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { JOBS, QUEUES } from '@mediagen/queue';
import type { WorkerContext } from './context';
import { reconcile } from './reconciler';
import { sweepTimeouts } from './timeout-sweep';
import { deleteSettledInputs } from './settled-inputs';

export interface Maintenance {
  queue: Queue;
  worker: Worker;
}

export async function startMaintenance(ctx: WorkerContext, connection: Redis): Promise<Maintenance> {
  const prefix = ctx.config.REDIS_PREFIX;
  const queue = new Queue(QUEUES.maintenance, { connection, prefix });
  const opts = { removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } };
  // Upserting is idempotent: every worker declares the same schedules; the last declaration wins.
  await queue.upsertJobScheduler(JOBS.sweepTimeouts, { every: ctx.config.SWEEP_INTERVAL_MS }, { name: JOBS.sweepTimeouts, data: {}, opts });
  await queue.upsertJobScheduler(JOBS.reconcile, { every: ctx.config.RECONCILE_INTERVAL_MS }, { name: JOBS.reconcile, data: {}, opts });
  const worker = new Worker(
    QUEUES.maintenance,
    async (job) => {
      if (job.name === JOBS.sweepTimeouts) return { timedOut: await sweepTimeouts(ctx) };
      if (job.name === JOBS.reconcile) {
        const result = await reconcile(ctx);
        const inputsDeleted = await deleteSettledInputs(ctx).catch((err: Error) => {
          ctx.log.warn({ err: err.message }, 'settled inputs not deleted; next run retries');
          return 0;
        });
        return { ...result, inputsDeleted };
      }
      return null;
    },
    { connection, prefix, concurrency: 1, lockDuration: 60_000 },
  );
  worker.on('error', (err) => ctx.log.error({ err: err.message }, 'maintenance worker error'));
  worker.on('failed', (job, err) => ctx.log.error({ job: job?.name, err: err.message }, 'maintenance job failed'));
  return { queue, worker };
}
