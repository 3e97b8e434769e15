// Maintenance for outbound webhooks: the outbox scan (settled tasks whose deliveries were never
// created, because their settler died between the commit and the outbox step) and lost delivery
// jobs (pending deliveries overdue with no live job, e.g. Redis lost its data).
import { enqueueDelivery, jobKey, QUEUES } from '@mediagen/queue';
import { overdueDeliveries, tasksWithoutWebhookEvents } from '@mediagen/db';
import { emitTaskWebhooks } from '@mediagen/webhooks';
import type { WorkerContext } from './context';

export async function reconcileWebhooks(ctx: WorkerContext): Promise<{ emitted: number; revived: number }> {
  const grace = ctx.config.RECONCILE_GRACE_MS;
  let emitted = 0;
  for (const taskId of await tasksWithoutWebhookEvents(ctx.db, grace)) {
    await emitTaskWebhooks(ctx, taskId);
    emitted += 1;
  }
  let revived = 0;
  const overdue = await overdueDeliveries(ctx.db, grace);
  if (overdue.length) {
    const pipe = ctx.redis.pipeline();
    for (const id of overdue) pipe.hmget(jobKey(ctx.redis, ctx.config.REDIS_PREFIX, QUEUES.webhooks, id), 'timestamp', 'finishedOn');
    const answers = (await pipe.exec()) ?? [];
    for (const [i, id] of overdue.entries()) {
      const [err, fields] = answers[i] ?? [];
      if (err) continue;
      const [timestamp, finishedOn] = fields as (string | null)[];
      if (timestamp && !finishedOn) continue; // its job is waiting, delayed or active
      if (finishedOn) await (await ctx.webhookQueue.getJob(id))?.remove().catch(() => undefined);
      await enqueueDelivery(ctx.webhookQueue, id);
      revived += 1;
      ctx.log.warn({ deliveryId: id }, 'pending webhook delivery had no live job; re-enqueued');
    }
  }
  if (emitted) ctx.log.warn({ emitted }, 'settled tasks had no webhook deliveries yet; created');
  return { emitted, revived };
}
