// Status lists the SQL of this package is built from, so a status is spelled once. Task statuses
// and failure codes are the client's vocabulary and come from @mediagen/catalog; attempt statuses
// are this package's own (TaskAttempt.status is text). test/structure/vocabulary.test.ts fails on a
// list written out again in another file.
import { OPEN_TASK_STATUSES, SETTLED_TASK_STATUSES, TASK_ERROR_CODES } from '@mediagen/catalog';

export const ATTEMPT_STATUSES = [
  'submitting', // created; the upstream may or may not have the render (the idempotency key decides)
  'running', // the upstream accepted it; upstreamId is set
  'succeeded', // the upstream finished it; its file is being downloaded
  'completed', // the file is stored and the task completed
  'failed', // render failed or the channel refused it: the next channel is tried
  'violation', // explicit content flag: the task failed with content_violation
  'no_result', // success without a usable file
  'lost', // the upstream no longer knows the render (404 on poll): one fresh attempt on the same channel
  'abandoned', // the task ended otherwise (timeout) while this attempt ran
] as const;
export type AttemptStatus = (typeof ATTEMPT_STATUSES)[number];

/**
 * An attempt still open: the upstream may hold (or be rendering) its render, so a cancel must reach
 * the upstream, a resumed job continues it instead of starting another, and a task that ends
 * otherwise closes it as abandoned.
 */
export const OPEN_ATTEMPT_STATUSES = ['submitting', 'running', 'succeeded'] as const satisfies readonly AttemptStatus[];
const OPEN_ATTEMPTS: ReadonlySet<string> = new Set(OPEN_ATTEMPT_STATUSES);
export function isOpenAttempt(status: string): boolean {
  return OPEN_ATTEMPTS.has(status);
}

/** A webhook delivery's status (WebhookDelivery.status is text): waiting or retrying, delivered, given up. */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** What a failed task's errorCode says (the catalog's TASK_ERROR_CODES). */
export type FailureCode = (typeof TASK_ERROR_CODES)[number];

/**
 * A list of literals for `IN (...)`. Only our own constant lists go in, and each value is checked
 * against a plain-word pattern, so inlining them cannot open an injection.
 */
export function sqlList(values: readonly string[]): string {
  for (const v of values) if (!/^[a-z_]+$/.test(v)) throw new Error(`not a plain status word: ${v}`);
  return values.map((v) => `'${v}'`).join(', ');
}

/** `'submitting', 'running', 'succeeded'` for SQL. */
export const OPEN_ATTEMPT_SQL = sqlList(OPEN_ATTEMPT_STATUSES);
/** `'pending', 'processing'` for SQL. */
export const OPEN_TASK_SQL = sqlList(OPEN_TASK_STATUSES);
/** `'completed', 'failed'` for SQL. */
export const SETTLED_TASK_SQL = sqlList(SETTLED_TASK_STATUSES);
