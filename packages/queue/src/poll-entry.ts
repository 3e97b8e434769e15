// The poll cache entry of a task: one codec for every process that writes or reads it. The gateway
// stores it in Redis under pollCacheKey (the shared entry every gateway answers polls from), the
// task event publisher replaces it with the settled entry and sends that entry in the task event,
// and gateways read it back (poll cache, task event streams, answers-at-once submits). Every read
// goes through decodePollEntry: an entry that does not match the schema is not answered.
//
// Wire form: { a: accountId, t: task type, b: poll body }. WARNING: gateways and workers of two
// versions share it during a rolling deploy, so the short names stay and fields are only added,
// optional. The body is the client's poll body (catalog pollBody) exactly as it was serialised:
// decoding validates it and hands on the received object itself, not zod's copy, because zod
// rebuilds objects in schema key order and every gateway must answer the same bytes (and so the
// same ETag) for one entry.
import { z } from 'zod';
import { SETTLED_TASK_STATUSES, type TaskStatusName } from '@mediagen/catalog';

const TASK_TYPES = ['video', 'image'] as const;
type TaskType = (typeof TASK_TYPES)[number];

// One object schema per status, with the fields pollBody gives that status; fields a newer writer
// adds are kept (loose objects), so an older reader answers them unchanged.
const type = z.enum(TASK_TYPES);
const pollBodySchema = z.discriminatedUnion('status', [
  z.looseObject({ status: z.literal('pending'), type }),
  z.looseObject({ status: z.literal('processing'), progress: z.number().min(0).max(100), type }),
  z.looseObject({ status: z.literal('completed'), resultUrls: z.array(z.string()), type, expiresAt: z.iso.datetime().optional() }),
  z.looseObject({ status: z.literal('failed'), errorMessage: z.string().nullable(), errorCode: z.string().nullable(), retryable: z.boolean().nullable(), type }),
]);

const wireSchema = z
  .object({ a: z.string().min(1).max(200), t: type, b: pollBodySchema })
  .refine((w) => w.b.type === w.t, { message: 'the body is of another task type' });

/** A task's poll body as clients receive it, by status. */
export type PollBody = z.infer<typeof pollBodySchema>;
export type SettledPollBody = Extract<PollBody, { status: (typeof SETTLED_TASK_STATUSES)[number] }>;

/** A task's poll cache entry: who owns the task, its type, and the body a poll answers. */
export interface PollCacheEntry<B extends PollBody = PollBody> {
  accountId: string;
  type: TaskType;
  body: B;
}
/** The entry of a settled task: what a settlement stores and its task event carries. */
export type SettledPollEntry = PollCacheEntry<SettledPollBody>;

const isSettledStatus = (s: TaskStatusName): s is SettledPollBody['status'] => (SETTLED_TASK_STATUSES as readonly string[]).includes(s);

export const isSettledPollEntry = (e: PollCacheEntry): e is SettledPollEntry => isSettledStatus(e.body.status);

/** The entry of already parsed JSON (a task event's field), or null when it does not match the schema. */
export function pollEntryOf(raw: unknown): PollCacheEntry | null {
  const r = wireSchema.safeParse(raw);
  if (!r.success) return null;
  return { accountId: r.data.a, type: r.data.t, body: (raw as { b: PollBody }).b };
}

/** The entry stored under pollCacheKey, or null when it is not JSON or does not match the schema. */
export function decodePollEntry(stored: string): PollCacheEntry | null {
  let raw: unknown;
  try {
    raw = JSON.parse(stored);
  } catch {
    return null;
  }
  return pollEntryOf(raw);
}

/** The settled entry of parsed JSON, or null when it does not match the schema or is not settled. */
export function settledPollEntryOf(raw: unknown): SettledPollEntry | null {
  const e = pollEntryOf(raw);
  return e !== null && isSettledPollEntry(e) ? e : null;
}

/** The wire object of an entry (what JSON.stringify writes; task events embed it). */
export const pollEntryWire = (e: PollCacheEntry): { a: string; t: TaskType; b: PollBody } => ({ a: e.accountId, t: e.type, b: e.body });

/** The stored form of an entry. */
export const encodePollEntry = (e: PollCacheEntry): string => JSON.stringify(pollEntryWire(e));

/**
 * An entry from a poll body built by catalog pollBody (typed loosely there); throws when the body
 * does not match the schema, so nothing is stored that readers would refuse.
 */
export function toPollEntry(accountId: string, type: TaskType, body: Record<string, unknown>): PollCacheEntry {
  const e = pollEntryOf({ a: accountId, t: type, b: body });
  if (e === null) throw new Error(`poll entry: the ${type} body with status ${String(body.status)} does not match the entry schema`);
  return e;
}
