import { Queue } from 'bullmq';
import { queuePrefix, RedisClient } from './connection';
import { DeliverWebhookPayload, JOBS, QUEUES, RunTaskPayload } from './contracts';

export type TaskQueue = Queue<RunTaskPayload>;

export function createTaskQueue(connection: RedisClient, prefix: string): TaskQueue {
  return new Queue<RunTaskPayload>(QUEUES.tasks, {
    connection,
    prefix: queuePrefix(connection, prefix),
    defaultJobOptions: { removeOnComplete: { age: 3600, count: 10_000 }, removeOnFail: { age: 7 * 86400 } },
  });
}

/** jobId = taskId makes enqueueing idempotent: the reconciler may call it again safely. */
export async function enqueueTask(queue: TaskQueue, taskId: string, requestId?: string): Promise<void> {
  await queue.add(JOBS.runTask, { taskId, step: 'submit', transientErrors: 0, ...(requestId ? { requestId: requestId.slice(0, 200) } : {}) }, { jobId: taskId });
}

/**
 * Runs a task's job now instead of at its next scheduled step (an upstream callback said the render
 * moved). A job waiting in the delayed set is promoted. A job that is running a step right now
 * cannot be: its step may already have read the upstream as still running, and would then sleep a
 * whole poll interval with the callback lost (issue 15.1: most callbacks of short renders came in
 * while the poll step ran). So the wake is written down first (a flag key, kept a minute) and the
 * running step's end takes it (takeWake) and runs the job again at once. A missing job is left
 * alone (the reconciler re-creates lost jobs).
 * Ordering: flag, then promote here; move to delayed, then take the flag in the worker. Whichever
 * way the two interleave, one of them finds the job delayed with the flag set.
 */
export async function wakeTask(queue: TaskQueue, redis: WakeFlags, taskId: string): Promise<boolean> {
  const job = await queue.getJob(taskId);
  if (!job) return false;
  const key = wakeKey(queue, taskId);
  await redis.set(key, '1', 'PX', WAKE_FLAG_MS);
  try {
    await job.promote();
    // Delivered: the flag would only cost the next step an extra immediate run.
    await redis.del(key);
    return true;
  } catch {
    // Not delayed (running, or finished): the flag wakes it when its step ends.
    return false;
  }
}

/** The plain command connection of the process (the gateway's or the worker's), same Redis as the queue. */
export interface WakeFlags {
  set(key: string, value: string, px: 'PX', ms: number): Promise<unknown>;
  del(key: string): Promise<number>;
}

const WAKE_FLAG_MS = 60_000;
const wakeKey = (queue: TaskQueue, taskId: string) => `${queue.opts.prefix ?? 'bull'}:wake:${taskId}`;

/**
 * Called by the worker right after a step moved the job to the delayed set: when a wake came in
 * while the step ran, the job is promoted now. True when it was.
 */
export async function takeWake(queue: TaskQueue, redis: WakeFlags, job: { id?: string; promote(): Promise<void> }): Promise<boolean> {
  if (!job.id) return false;
  if ((await redis.del(wakeKey(queue, job.id))) === 0) return false;
  try {
    await job.promote();
    return true;
  } catch {
    // Already promoted by the callback itself, or running again: the wake is delivered either way.
    return false;
  }
}

export type WebhookQueue = Queue<DeliverWebhookPayload>;

export function createWebhookQueue(connection: RedisClient, prefix: string): WebhookQueue {
  // Finished jobs are removed at once: a re-sent delivery gets a new job under the same jobId.
  return new Queue<DeliverWebhookPayload>(QUEUES.webhooks, {
    connection,
    prefix: queuePrefix(connection, prefix),
    defaultJobOptions: { removeOnComplete: true, removeOnFail: { age: 7 * 86400 } },
  });
}

/**
 * jobId = deliveryId: enqueueing a delivery that already has a live job is a no-op, so the settle
 * path, the reconciler and a resend may all call it. `delayMs` defers the first run.
 */
export async function enqueueDelivery(queue: WebhookQueue, deliveryId: string, delayMs = 0): Promise<void> {
  await queue.add(JOBS.deliverWebhook, { deliveryId }, { jobId: deliveryId, delay: Math.max(0, delayMs) });
}
