// Publishes task events (pubsub.ts) for gateways waiting on a task, and drops the task's poll cache
// entry first, so a client polling within POLL_CACHE_MS sees the settled state at once instead of
// the cached `pending`/`processing` for up to 5 s (issue 15.1: provider finished -> task visible).
// Best effort by design: the state is already committed, a waiting gateway re-reads the task when
// its window ends, and a cache entry left behind only expires on its own.
import { redisKey, RedisClient } from './connection';
import { encodeTaskEvent, pubsubChannel, TaskEvent } from './pubsub';

/**
 * The gateway's poll cache entry of a task (apps/gateway poll.service.ts). Here because settling
 * processes (the worker) drop it: both sides must agree on the key.
 */
export const pollCacheKey = (prefix: string, taskId: string): string => redisKey(prefix, 'poll', taskId);

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
        // Sent together on one connection (DEL first); the PUBLISH does not wait for the DEL's answer.
        await Promise.all([redis.del(pollCacheKey(prefix, taskId)), redis.publish(channel, encodeTaskEvent({ taskId, status }))]);
      } catch (err) {
        log.warn({ taskId, err: (err as Error).message }, 'task event not published');
      }
    },
  };
}
