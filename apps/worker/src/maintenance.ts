// Housekeeping on its own queue: the timeout sweep and the reconciler run as BullMQ job schedulers,
// so with several worker processes each run happens once, wherever a worker is free.
import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { JOBS, QUEUES } from '@mediagen/queue';
import type { WorkerContext } from './context';
import { reconcile } from './reconciler';
import { sweepTimeouts } from './timeout-sweep';
import { reconcileWebhooks } from './webhook-events';
import { keepSchedules, ScheduleKeeper } from './schedule-keeper';

export interface Maintenance {
  queue: Queue;
  worker: Worker;
  /** Declares the schedulers again when Redis lost them (schedule-keeper.ts); stopped on shutdown. */
  keeper: ScheduleKeeper;
}

export async function startMaintenance(ctx: WorkerContext, connection: Redis): Promise<Maintenance> {
  const prefix = ctx.config.REDIS_PREFIX;
  const queue = new Queue(QUEUES.maintenance, { connection, prefix });
  const opts = { removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } };
  // Upserting is idempotent: every worker declares the same schedules; the last declaration wins.
  const schedules = [
    { id: JOBS.sweepTimeouts, declare: () => queue.upsertJobScheduler(JOBS.sweepTimeouts, { every: ctx.config.SWEEP_INTERVAL_MS }, { name: JOBS.sweepTimeouts, data: {}, opts }) },
    { id: JOBS.reconcile, declare: () => queue.upsertJobScheduler(JOBS.reconcile, { every: ctx.config.RECONCILE_INTERVAL_MS }, { name: JOBS.reconcile, data: {}, opts }) },
    { id: JOBS.reconcileWebhooks, declare: () => queue.upsertJobScheduler(JOBS.reconcileWebhooks, { every: ctx.config.RECONCILE_INTERVAL_MS }, { name: JOBS.reconcileWebhooks, data: {}, opts }) },
  ];
  for (const s of schedules) await s.declare();
  const keeper = keepSchedules(queue, schedules, {
    checkEveryMs: Math.min(ctx.config.SWEEP_INTERVAL_MS, ctx.config.RECONCILE_INTERVAL_MS, 10_000),
    log: ctx.log,
    onConnectionReady: (fn) => connection.on('ready', fn),
  });
  const worker = new Worker(
    QUEUES.maintenance,
    async (job) => {
      if (job.name === JOBS.sweepTimeouts) return { timedOut: await sweepTimeouts(ctx) };
      if (job.name === JOBS.reconcile) return reconcile(ctx);
      if (job.name === JOBS.reconcileWebhooks) return reconcileWebhooks(ctx);
      return null;
    },
    { connection, prefix, concurrency: 1, lockDuration: 60_000 },
  );
  worker.on('error', (err) => ctx.log.error({ err: err.message }, 'maintenance worker error'));
  worker.on('failed', (job, err) => ctx.log.error({ job: job?.name, err: err.message }, 'maintenance job failed'));
  return { queue, worker, keeper };
}
