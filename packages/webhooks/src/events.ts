// The task events sent to clients: `task.completed` and `task.failed`, in the body every receiver relies on:
// `{type, timestamp, data}` with data = the task's poll body plus taskId, model and effectivePrompt.
import { pollBody, TaskBodyRow } from '@mediagen/catalog';

export const WEBHOOK_EVENT_TYPES = ['task.completed', 'task.failed'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export interface SettledTaskRow extends TaskBodyRow {
  id: string;
  model: string;
  finishedAt: Date;
  /** The prompt sent upstream (optimize_prompt's rewrite, or the prompt as written). */
  effectivePrompt: string | null;
}

export const eventTypeOf = (status: string): WebhookEventType | null =>
  status === 'completed' ? 'task.completed' : status === 'failed' ? 'task.failed' : null;

/** The JSON body, built once when the delivery is created; every retry sends these same bytes. */
export function eventBody(type: WebhookEventType, t: SettledTaskRow): string {
  return JSON.stringify({ type, timestamp: t.finishedAt.toISOString(), data: { ...pollBody(t), taskId: t.id, model: t.model, effectivePrompt: t.effectivePrompt } });
}
