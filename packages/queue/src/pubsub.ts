// Pub/sub contracts between processes (Redis PUBLISH/SUBSCRIBE), beside the job catalog: the
// channel names and the message schemas, for every publisher and every subscriber.
//
// WARNING: a channel name or a message shape changed here changes it for gateways and workers of
// one deployment at once; during a rolling deploy old and new processes must still understand each
// other, so add optional fields rather than renaming (unknown fields are ignored on receipt).
import { z } from 'zod';
import { SETTLED_TASK_STATUSES } from '@mediagen/catalog';
import { redisKey } from './connection';
import { pollEntryWire, settledPollEntryOf, type SettledPollEntry } from './poll-entry';

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
 * the task event publisher replaces or deletes it before announcing a settlement). Its value is
 * written and read with the codec of poll-entry.ts.
 */
export const pollCacheKey = (prefix: string, taskId: string): string => `${prefix}:poll:${taskId}`;

/**
 * How long the shared entry a settlement stores lives. Short: it serves the polls that follow a
 * settlement (a client polling every few seconds); tasks nobody polls (webhook clients) should not
 * fill Redis for the 10 minutes a polled terminal entry is kept.
 */
export const SETTLED_POLL_ENTRY_MS = 30_000;

/**
 * A task-events message. Best effort: the event wakes receivers; `entry` (added 2026-11-23, optional
 * so that older publishers and receivers still understand each other) is the settled task's poll
 * entry in its wire form (poll-entry.ts), which saves receivers a read.
 */
const taskEventWireSchema = z.object({
  taskId: z.string().min(1).max(200),
  status: z.enum(SETTLED_TASK_STATUSES),
  entry: z.unknown().optional(),
});

/** A task event as publishers give it and receivers get it, its entry with named fields. */
export interface TaskEvent {
  taskId: string;
  status: (typeof SETTLED_TASK_STATUSES)[number];
  entry?: SettledPollEntry;
}

/** The wire form of a task event; throws on an event that does not match the schema. */
export function encodeTaskEvent(event: TaskEvent): string {
  const { taskId, status } = taskEventWireSchema.parse(event);
  if (event.entry === undefined) return JSON.stringify({ taskId, status });
  const entry = pollEntryWire(event.entry);
  if (settledPollEntryOf(entry) === null) throw new Error('task event: the entry does not match the settled poll entry schema');
  return JSON.stringify({ taskId, status, entry });
}

/**
 * The event in a received message, or null when the message is not a valid task event. An entry
 * that does not parse is dropped, not the event: the event alone still wakes receivers.
 */
export function decodeTaskEvent(message: string): TaskEvent | null {
  let raw: unknown;
  try {
    raw = JSON.parse(message);
  } catch {
    return null;
  }
  const r = taskEventWireSchema.safeParse(raw);
  if (!r.success) return null;
  const { taskId, status } = r.data;
  const entry = r.data.entry === undefined ? null : settledPollEntryOf(r.data.entry);
  return entry === null ? { taskId, status } : { taskId, status, entry };
}

/** A key-revoked message: the revoked key's sha256, hex (what the auth cache is keyed by). */
export const keyRevokedSchema = z.string().regex(/^[0-9a-f]{64}$/);

export const decodeKeyRevoked = (message: string): string | null => (keyRevokedSchema.safeParse(message).success ? message : null);
