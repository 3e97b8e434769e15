// After a settle commits: create the task's webhook deliveries (the outbox step, outbox.ts) and
// queue them. Never throws: the settlement is already committed, and whatever fails here the
// worker's reconciler repeats (settled tasks without their outbox mark, pending deliveries whose
// job is gone).
import type { Logger } from 'pino';
import type { Db } from '@mediagen/db';
import { enqueueDelivery, type WebhookQueue } from '@mediagen/queue';
import { createTaskDeliveries } from './outbox';

export async function emitTaskWebhooks(deps: { db: Db; webhookQueue: WebhookQueue; log: Logger }, taskId: string): Promise<void> {
  try {
    const ids = await createTaskDeliveries(deps.db, taskId);
    for (const id of ids) await enqueueDelivery(deps.webhookQueue, id);
  } catch (err) {
    deps.log.warn({ taskId, err: (err as Error).message }, 'task webhooks not created yet; the reconciler will');
  }
}
