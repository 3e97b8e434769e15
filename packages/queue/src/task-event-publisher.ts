// Publishes task events (pubsub.ts) for gateways waiting on a task. Best effort by design: the
// state is already committed, and a waiting gateway re-reads the task when its window ends.
//
// Before the event goes out, the task's shared poll cache entry (pollCacheKey) is deleted, on the
// same connection and so in this order: a gateway that hears the event drops its local copy and
// finds no shared entry holding the state from before the settlement, so every gateway answers
// the settled state from then on (docs/operations.md, "Poll cache and rate limits across gateways").
import type { RedisClient } from './connection';
import { encodeTaskEvent, pollCacheKey, pubsubChannel, TaskEvent } from './pubsub';

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
        await redis.del(pollCacheKey(prefix, taskId));
        await redis.publish(channel, encodeTaskEvent({ taskId, status }));
      } catch (err) {
        log.warn({ taskId, err: (err as Error).message }, 'task event not published');
      }
    },
  };
}
