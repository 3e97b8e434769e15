// The BullMQ worker of the `webhooks` queue: one job per delivery (jobId = deliveryId, payload the
// id only). A failed attempt moves the job to the delayed set until the next attempt of the
// backoff schedule, so deliveries waiting on a down receiver hold no worker slot.
import { DelayedError, Job, UnrecoverableError, Worker } from 'bullmq';
import { DeliverWebhookPayload, deliverWebhookPayloadSchema, QUEUES, queuePrefix, RedisClient } from '@mediagen/queue';
import { createDeliveryGate, deliverOnce, DeliverOptions } from '@mediagen/webhooks';
import type { WorkerContext } from './context';

export function deliverOptions(ctx: WorkerContext): DeliverOptions {
  const c = ctx.config;
  return {
    schedule: { baseMs: c.WEBHOOK_RETRY_BASE_MS, maxDelayMs: c.WEBHOOK_RETRY_MAX_DELAY_MS, windowMs: c.WEBHOOK_RETRY_WINDOW_MS },
    send: {
      allowPrivate: c.ALLOW_LOCAL_WEBHOOKS,
      timeoutMs: c.WEBHOOK_TIMEOUT_MS,
      connectTimeoutMs: c.WEBHOOK_CONNECT_TIMEOUT_MS,
      firstByteTimeoutMs: c.WEBHOOK_FIRST_BYTE_TIMEOUT_MS,
    },
    // One account's (or one destination's) slow or dead receivers cannot hold every slot (fairness.ts).
    gate: createDeliveryGate(ctx.redis, c.REDIS_PREFIX, {
      accountConcurrency: c.WEBHOOK_ACCOUNT_CONCURRENCY,
      destinationConcurrency: c.WEBHOOK_DESTINATION_CONCURRENCY,
      destinationFailures: c.WEBHOOK_DESTINATION_FAILURES,
      backoffBaseMs: c.WEBHOOK_RETRY_BASE_MS,
      backoffMaxMs: c.WEBHOOK_RETRY_MAX_DELAY_MS,
      leaseMs: c.WEBHOOK_TIMEOUT_MS + 10_000,
    }),
  };
}

export function createWebhookWorker(ctx: WorkerContext, connection: RedisClient): Worker<DeliverWebhookPayload> {
  const opts = deliverOptions(ctx);
  const worker = new Worker<DeliverWebhookPayload>(
    QUEUES.webhooks,
    async (job: Job<DeliverWebhookPayload>, token?: string) => {
      const parsed = deliverWebhookPayloadSchema.safeParse(job.data);
      if (!parsed.success) throw new UnrecoverableError(`invalid deliver-webhook payload: ${parsed.error.message}`);
      const { deliveryId } = parsed.data;
      let out;
      try {
        out = await deliverOnce(ctx.db, deliveryId, opts);
      } catch (err) {
        // Our database failed, not the receiver: the row still says pending; look again shortly.
        ctx.log.warn({ deliveryId, err: (err as Error).message }, 'webhook delivery step failed; will retry');
        out = { kind: 'retry' as const, at: Date.now() + 5_000 };
      }
      if (out.kind === 'done') {
        ctx.log.info({ deliveryId, status: out.status }, 'webhook delivery finished');
        return out.status;
      }
      await job.moveToDelayed(out.at, token);
      throw new DelayedError();
    },
    { connection, prefix: queuePrefix(connection, ctx.config.REDIS_PREFIX), concurrency: ctx.config.WEBHOOK_CONCURRENCY, lockDuration: Math.max(30_000, ctx.config.WEBHOOK_TIMEOUT_MS * 3) },
  );
  worker.on('error', (err) => ctx.log.error({ err: err.message }, 'webhook worker error'));
  worker.on('failed', (job, err) => ctx.log.error({ deliveryId: job?.id, err: err.message }, 'webhook job failed'));
  return worker;
}
