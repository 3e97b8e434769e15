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
 * moved). Only a job waiting in the delayed set is moved; a running or missing one is left alone
 * (the running step reads the upstream anyway; the reconciler re-creates lost jobs).
 */
export async function wakeTask(queue: TaskQueue, taskId: string): Promise<boolean> {
  const job = await queue.getJob(taskId);
  if (!job) return false;
  try {
    await job.promote();
    return true;
  } catch {
    // Not delayed any more (running, or finished): nothing to wake.
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
