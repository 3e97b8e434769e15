// The BullMQ worker of the `tasks` queue. Concurrency bounds the steps running at once, not the
// renders in flight: a task waiting for its render sits in the delayed set and costs no slot.
import type { Worker } from 'bullmq';
import { QUEUES, queuePrefix, RedisClient, RunTaskPayload, StepFirstWorker } from '@mediagen/queue';
import type { WorkerContext } from './context';
import { createRunTaskProcessor } from './run-task';

export function createTaskWorker(ctx: WorkerContext, connection: RedisClient): Worker<RunTaskPayload> {
  const { config } = ctx;
  // A woken task's step starts before BullMQ asks for the next job (packages/queue step-first-worker.ts).
  const worker = new StepFirstWorker<RunTaskPayload, string>(QUEUES.tasks, createRunTaskProcessor(ctx), {
    connection,
    prefix: queuePrefix(connection, config.REDIS_PREFIX),
    concurrency: config.WORKER_CONCURRENCY,
    // A worker killed mid-step stops renewing its lock; after lockDuration the stalled check of any
    // live worker moves the job back to waiting. Steps are idempotent, so running one again is safe.
    lockDuration: config.WORKER_LOCK_MS,
    stalledInterval: config.WORKER_STALLED_INTERVAL_MS,
    // A task lives for hours and may see several crashes; the reconciler revives the rare job that
    // exceeds this anyway.
    maxStalledCount: 10,
  });
  worker.on('error', (err) => ctx.log.error({ err: err.message }, 'task worker error'));
  worker.on('failed', (job, err) => ctx.log.error({ taskId: job?.id, err: err.message }, 'task job failed'));
  worker.on('stalled', (jobId) => ctx.log.warn({ taskId: jobId }, 'stalled task job recovered'));
  return worker;
}
