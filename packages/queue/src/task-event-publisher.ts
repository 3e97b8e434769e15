// Publishes task events (pubsub.ts) for gateways waiting on a task. Best effort by design: the
// state is already committed, and a waiting gateway re-reads the task when its window ends.
//
// Before the event goes out, the task's shared poll cache entry (pollCacheKey) is replaced by the
// settled one (or deleted, when the publisher has none to give), on the same connection and so in
// this order (a replacement goes out with the event, without waiting for its reply): a gateway
// that hears the event drops its local copy and finds no shared entry holding the state from
// before the settlement, so every gateway answers the settled state from
// then on (docs/operations.md, "Poll cache and rate limits across gateways"). The event carries the
// settled entry too: a gateway keeps it as its local copy and answers the next poll from memory.
import type { RedisClient } from './connection';
import { encodePollEntry, type SettledPollEntry } from './poll-entry';
import { encodeTaskEvent, pollCacheKey, pubsubChannel, SETTLED_POLL_ENTRY_MS, TaskEvent } from './pubsub';

export interface TaskEventPublisher {
  /** `entry`: the settled task's poll entry (owner, type, poll body), stored and sent with the event. */
  publish(taskId: string, status: TaskEvent['status'], entry?: SettledPollEntry): Promise<void>;
}

/** The slice of a logger the publisher needs (pino's Logger fits). */
export interface WarnLogger {
  warn(obj: object, msg: string): void;
}

export function createTaskEventPublisher(redis: RedisClient, prefix: string, log: WarnLogger): TaskEventPublisher {
  const channel = pubsubChannel(prefix, 'taskEvents');
  return {
    async publish(taskId, status, entry) {
      try {
        const key = pollCacheKey(prefix, taskId);
        const event = encodeTaskEvent({ taskId, status, ...(entry ? { entry } : {}) });
        if (entry) {
          // Sent together, one round trip (time to result waits for the event): on one server the
          // connection keeps their order; on a cluster the key's node may apply the SET after a
          // gateway heard the event, which then needs no shared entry (it keeps the event's, and
          // takes a shared entry older than the event for stale: apps/gateway poll-cache.ts).
          await Promise.all([redis.set(key, encodePollEntry(entry), 'PX', SETTLED_POLL_ENTRY_MS), redis.publish(channel, event)]);
        } else {
          // Without an entry a gateway that hears the event reads the shared entry: it must be gone first.
          await redis.del(key);
          await redis.publish(channel, event);
        }
      } catch (err) {
        log.warn({ taskId, err: (err as Error).message }, 'task event not published');
      }
    },
  };
}
