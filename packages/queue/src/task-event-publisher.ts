// Publishes task events (pubsub.ts) for gateways waiting on a task. Best effort by design: the
// state is already committed, and a waiting gateway re-reads the task when its window ends.
import type { RedisClient } from './connection';
import { encodeTaskEvent, pubsubChannel, TaskEvent } from './pubsub';

export interface TaskEventPublisher {
  publish(taskId: string, status: TaskEvent['status']): Promise<void>;
}

/** The slice of a logger the publisher needs (pino's Logger fits). */
export interface WarnLogger {
  warn(obj: object, msg: string): void;
}

export function createTaskEventPublisher(redis: RedisClient, prefix: string, log: WarnLogger): TaskEventPublisher {
  const channel = pubsubChannel(prefix, 'taskEvents');
  return {
    async publish(taskId, status) {
      try {
        await redis.publish(channel, encodeTaskEvent({ taskId, status }));
      } catch (err) {
        log.warn({ taskId, err: (err as Error).message }, 'task event not published');
      }
    },
  };
}
