// Terminal moves of a task, one path for every process that makes them (the worker's steps and
// timeout sweep, the gateway when a task's inline files cannot be stored): the settlement
// transaction (packages/db), then the task event for waiting gateways, the metrics and the
// transition log lines. Only the winner of the compare-and-set does the rest, so each task is
// counted, announced and logged once cluster-wide.
import type { Logger } from 'pino';
import { completeTask, Db, failTask, FailureCode, RETRYABLE, taskSummary } from '@mediagen/db';
import type { SettlementMetrics } from '@mediagen/metrics';
import type { TaskEventPublisher, WebhookQueue } from '@mediagen/queue';
import { emitTaskWebhooks } from '@mediagen/webhooks';
import { failureMessage, FailureReason } from './failure-messages';

/** What settling needs; the worker's context and the gateway's settle context both fit it. */
export interface SettleContext {
  db: Db;
  events: TaskEventPublisher;
  log: Logger;
  metrics: { tasks: SettlementMetrics };
  config: { TASK_TIMEOUT_MS: number };
  /** Outbound webhooks: the settled task's deliveries are created and queued right after the commit. */
  webhookQueue?: WebhookQueue;
}

export interface FailureDetail {
  channelsTried?: number;
  /** Why, for the log line only (never shown to clients). */
  cause?: string;
  channel?: string;
  /** Picks a more precise client message where the code alone is too vague. */
  reason?: FailureReason;
}

/**
 * The settled task's webhook deliveries (packages/webhooks), created and queued after the commit.
 * Not awaited: the settle path's callers (closing the attempt, freeing the slot) need not wait for
 * them, and emitTaskWebhooks never throws; if the process dies first, the reconciler creates them.
 */
function emitWebhooks(ctx: SettleContext, taskId: string): void {
  if (ctx.webhookQueue) void emitTaskWebhooks({ ...ctx, webhookQueue: ctx.webhookQueue }, taskId);
}

/**
 * Model, account and cost of a task whose settlement this process won, for the counters and log
 * lines. A read after the commit (the settlement functions return only won/lost); it runs once per
 * task, and never decides anything.
 */
async function settledTask(ctx: SettleContext, taskId: string): Promise<{ model: string; accountId: string; costCents: number }> {
  try {
    const summary = await taskSummary(ctx.db, taskId);
    if (summary) return summary;
  } catch (err) {
    ctx.log.warn({ taskId, err: (err as Error).message }, 'settled task not read back for metrics');
  }
  return { model: 'unknown', accountId: 'unknown', costCents: 0 };
}

export async function settleCompleted(ctx: SettleContext, taskId: string, resultUrls: string[], channel?: string): Promise<boolean> {
  const won = await completeTask(ctx.db, taskId, resultUrls);
  if (!won) {
    ctx.log.info({ taskId, won, channel }, 'task already settled; completion dropped');
    return false;
  }
  await ctx.events.publish(taskId, 'completed');
  emitWebhooks(ctx, taskId);
  const t = await settledTask(ctx, taskId);
  ctx.metrics.tasks.completed.inc({ model: t.model });
  ctx.log.info({ taskId, accountId: t.accountId, model: t.model, channel, files: resultUrls.length }, 'task completed');
  return true;
}

export async function settleFailed(ctx: SettleContext, taskId: string, code: FailureCode, detail: FailureDetail = {}): Promise<boolean> {
  const won = await failTask(ctx.db, taskId, {
    errorCode: code,
    errorMessage: failureMessage(code, { channelsTried: detail.channelsTried, timeoutMs: ctx.config.TASK_TIMEOUT_MS, reason: detail.reason }),
    retryable: RETRYABLE[code],
  });
  if (!won) {
    ctx.log.info({ taskId, errorCode: code, won, channel: detail.channel }, 'task already settled; failure dropped');
    return false;
  }
  await ctx.events.publish(taskId, 'failed');
  emitWebhooks(ctx, taskId);
  const t = await settledTask(ctx, taskId);
  // failTask refunds the whole charge in the same transaction that won the move to failed.
  ctx.metrics.tasks.failed.inc({ model: t.model, error_code: code });
  ctx.metrics.tasks.refunds.inc({ model: t.model, error_code: code });
  ctx.metrics.tasks.refundedCents.inc({ model: t.model }, t.costCents);
  const fields = { taskId, accountId: t.accountId, model: t.model, errorCode: code, channel: detail.channel };
  ctx.log.info({ ...fields, cause: detail.cause, channelsTried: detail.channelsTried }, 'task failed');
  ctx.log.info({ ...fields, refundCents: t.costCents }, 'task refunded');
  return true;
}
