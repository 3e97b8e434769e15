// Creating a settled task's deliveries: the outbox step between the settle commit and the queue.
// The rows are written by packages/db (insertTaskDeliveries: once per task, marked by
// `Task.eventsEmittedAt`, harmless when run twice); this file supplies what only the webhooks know:
// the event's type and body, and the secret format of the callback signing key made on first use.
import { insertTaskDeliveries, type Db, type SettledTaskForEvent } from '@mediagen/db';
import { eventBody, eventTypeOf, WEBHOOK_EVENT_TYPES } from './events';
import { newWebhookSecret } from './signing';

const taskEvent = (t: SettledTaskForEvent): { type: string; body: string } => {
  const type = eventTypeOf(t.status)!; // the task is settled: completed or failed
  return { type, body: eventBody(type, { ...t, resultUrls: t.resultUrls ?? [], finishedAt: t.finishedAt ?? new Date() }) };
};

/** Creates the deliveries of a settled task once; returns the ids to enqueue (empty when none or done). */
export async function createTaskDeliveries(db: Db, taskId: string): Promise<string[]> {
  return insertTaskDeliveries(db, taskId, { eventOf: taskEvent, eventTypes: WEBHOOK_EVENT_TYPES, newSecret: newWebhookSecret });
}
