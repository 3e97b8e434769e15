// Pub/sub contracts between processes (Redis PUBLISH/SUBSCRIBE), beside the job catalog: the
// channel names and the message schemas, for every publisher and every subscriber.
//
// WARNING: a channel name or a message shape changed here changes it for gateways and workers of
// one deployment at once; during a rolling deploy old and new processes must still understand each
// other, so add optional fields rather than renaming (unknown fields are ignored on receipt).
import { z } from 'zod';
import { SETTLED_TASK_STATUSES } from '@mediagen/catalog';
import { redisKey } from './connection';

export const PUBSUB = {
  /** Workers (and the gateway, for failures it settles itself) -> gateways: a task reached a terminal state. */
  taskEvents: 'task-events',
  /** Gateway admin API -> every gateway: evict this API key (sha256 hex) from the auth cache now. */
  keyRevoked: 'key-revoked',
} as const;
export type PubSubName = keyof typeof PUBSUB;

/** The Redis channel of one deployment (REDIS_PREFIX) for a pub/sub contract. */
export const pubsubChannel = (prefix: string, name: PubSubName): string => redisKey(prefix, PUBSUB[name]);

/**
 * The poll cache entry of a task, shared by every gateway (apps/gateway poll-cache.ts writes it;
 * the task event publisher replaces or deletes it before announcing a settlement).
 */
export const pollCacheKey = (prefix: string, taskId: string): string => `${prefix}:poll:${taskId}`;

/**
 * The settled task's poll entry, in the shared entry's wire form (apps/gateway poll-cache.ts):
 * owner, type and the poll body. A settlement stores it as the task's shared entry and sends it in
 * the event, so a gateway answers the next poll from memory instead of reading the task back.
 */
export const settledPollEntrySchema = z.object({
  a: z.string().min(1).max(200),
  t: z.enum(['video', 'image']),
  b: z.object({ status: z.enum(SETTLED_TASK_STATUSES) }).passthrough(),
});
export type SettledPollEntry = z.infer<typeof settledPollEntrySchema>;

/**
 * How long the shared entry a settlement stores lives. Short: it serves the polls that follow a
 * settlement (a client polling every few seconds); tasks nobody polls (webhook clients) should not
 * fill Redis for the 10 minutes a polled terminal entry is kept.
 */
export const SETTLED_POLL_ENTRY_MS = 30_000;

/**
 * A task-events message. Best effort: the event wakes receivers; `entry` (added 2026-11-23, optional
 * so that older publishers and receivers still understand each other) saves them a read.
 */
export const taskEventSchema = z.object({
  taskId: z.string().min(1).max(200),
  status: z.enum(SETTLED_TASK_STATUSES),
  // An entry that does not parse is dropped, not the event: the event alone still wakes receivers.
  entry: settledPollEntrySchema.optional().catch(undefined),
});
export type TaskEvent = z.infer<typeof taskEventSchema>;

/** The wire form of a task event; throws on an event that does not match the schema. */
export const encodeTaskEvent = (event: TaskEvent): string => JSON.stringify(taskEventSchema.parse(event));

/** The event in a received message, or null when the message is not a valid task event. */
export function decodeTaskEvent(message: string): TaskEvent | null {
  let raw: unknown;
  try {
    raw = JSON.parse(message);
  } catch {
    return null;
  }
  const r = taskEventSchema.safeParse(raw);
  return r.success ? r.data : null;
}

/** A key-revoked message: the revoked key's sha256, hex (what the auth cache is keyed by). */
export const keyRevokedSchema = z.string().regex(/^[0-9a-f]{64}$/);

export const decodeKeyRevoked = (message: string): string | null => (keyRevokedSchema.safeParse(message).success ? message : null);
