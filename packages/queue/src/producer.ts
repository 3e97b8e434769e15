import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { JOBS, QUEUES, RunTaskPayload } from './contracts';

export type TaskQueue = Queue<RunTaskPayload>;

export function createTaskQueue(connection: Redis, prefix: string): TaskQueue {
  return new Queue<RunTaskPayload>(QUEUES.tasks, {
    connection,
    prefix,
    defaultJobOptions: { removeOnComplete: { age: 3600, count: 10_000 }, removeOnFail: { age: 7 * 86400 } },
  });
}

/** jobId = taskId makes enqueueing idempotent: the reconciler may call it again safely. */
export async function enqueueTask(queue: TaskQueue, taskId: string, requestId?: string): Promise<void> {
  await queue.add(JOBS.runTask, { taskId, step: 'submit', transientErrors: 0, ...(requestId ? { requestId: requestId.slice(0, 200) } : {}) }, { jobId: taskId });
}
