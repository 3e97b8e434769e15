// Tells gateways that a task reached a terminal state (`<prefix>:task-events`, JSON {taskId, status}).
// The gateway's answers-at-once submit waits on it. Best effort by design: the state is already
// committed, and a waiting gateway re-reads the task when its window ends.
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

export interface TaskEventPublisher {
  publish(taskId: string, status: 'completed' | 'failed'): Promise<void>;
}

export function createTaskEventPublisher(redis: Redis, prefix: string, log: Logger): TaskEventPublisher {
  const channel = `${prefix}:task-events`;
  return {
    async publish(taskId, status) {
      try {
        await redis.publish(channel, JSON.stringify({ taskId, status }));
      } catch (err) {
        log.warn({ taskId, err: (err as Error).message }, 'task event not published');
      }
    },
  };
}
