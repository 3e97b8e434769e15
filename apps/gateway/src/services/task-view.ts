// The client-facing bodies of a task: one function per shape, from the row.
import type { Task } from '@mediagen/db';
import { pollBody as sharedPollBody } from '@mediagen/catalog';

type TaskRow = Pick<Task, 'id' | 'type' | 'status' | 'progress' | 'resultUrls' | 'errorCode' | 'errorMessage' | 'retryable' | 'expiresAt'>;

/** Poll body: one definition, shared with the webhook events. */
export const pollBody = (t: TaskRow): Record<string, unknown> => sharedPollBody(t);

/**
 * Submit body. A replay carries the task's current status; when that is `failed` (the
 * failed task keeps being returned) the error fields come along so the client need not poll.
 */
export function submitBody(t: TaskRow, replay: boolean, costCents: number): Record<string, unknown> {
  const body: Record<string, unknown> = { taskId: t.id, generationId: t.id, status: t.status };
  if (t.status === 'completed') body.resultUrls = t.resultUrls;
  if (t.status === 'processing') body.progress = t.progress;
  if (t.status === 'failed') Object.assign(body, { errorCode: t.errorCode, errorMessage: t.errorMessage, retryable: t.retryable });
  if (replay) body.idempotentReplay = true;
  // Extension: what was charged (the same figure POST .../quote answers beforehand).
  body.costCents = costCents;
  return body;
}
