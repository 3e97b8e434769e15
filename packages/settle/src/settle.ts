// Terminal moves of a task, one path for every process that makes them (the worker's steps and
// timeout sweep, the gateway when a task's inline files cannot be stored): the settlement
// transaction (packages/db), then the task event for waiting gateways, the metrics and the
// transition log lines. Only the winner of the compare-and-set does the rest, so each task is
// counted, announced and logged once cluster-wide.
import type { Logger } from 'pino';
import { pollBody } from '@mediagen/catalog';
import { completeAttemptAndTask, Db, failTaskRow, FailureCode, RETRYABLE, SettledTask, type CompletingAttempt } from '@mediagen/db';
import type { SettlementMetrics, StorageMetrics } from '@mediagen/metrics';
import { settledPollEntryOf, type SettledPollEntry, type TaskEventPublisher, type WebhookQueue } from '@mediagen/queue';
import { emitTaskWebhooks } from '@mediagen/webhooks';
import { failureMessage, FailureReason } from './failure-messages';

/** What settling needs; the worker's context and the gateway's settle context both fit it. */
export interface SettleContext {
  db: Db;
  events: TaskEventPublisher;
  log: Logger;
  metrics: { tasks: SettlementMetrics; storage?: StorageMetrics };
  config: { TASK_TIMEOUT_MS: number; RESULT_RETENTION_SECONDS: number };
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
 * A task with none to send was marked by the settling statement itself (SettledTask.eventsEmitted).
 */
function emitWebhooks(ctx: SettleContext, taskId: string, t: SettledTask): void {
  if (ctx.webhookQueue && !t.eventsEmitted) void emitTaskWebhooks({ ...ctx, webhookQueue: ctx.webhookQueue }, taskId);
}

export type CompletedSettlement = { attemptKept: boolean; task: SettledTask | null };

/**
 * Completes a task with its stored files and closes the attempt that made them, in one statement
 * (packages/db completeAttemptAndTask). `attemptKept` false: the attempt had been closed meanwhile
 * (nothing written; the caller drops the files). `task`: the settled task when this call won the
 * move to completed (its counters need no read back), else null. `resultBytes`: the stored files'
 * size, for the storage-growth figures.
 */
export async function settleCompleted(
  ctx: SettleContext,
  taskId: string,
  attempt: CompletingAttempt,
  resultUrls: string[],
  channel?: string,
  resultBytes?: number,
): Promise<CompletedSettlement> {
  const r = await completeAttemptAndTask(ctx.db, taskId, attempt, resultUrls, { retentionSeconds: ctx.config.RESULT_RETENTION_SECONDS, resultBytes });
  if (!r.attemptKept) {
    ctx.log.info({ taskId, channel, attemptId: attempt.id }, 'attempt closed meanwhile; completion dropped');
    return r;
  }
  const t = r.task;
  if (!t) {
    ctx.log.info({ taskId, won: false, channel }, 'task already settled; completion dropped');
    return r;
  }
  await ctx.events.publish(taskId, 'completed', settledEntry(t, { status: 'completed', resultUrls }));
  if (ctx.metrics.storage) {
    ctx.metrics.storage.filesStored.inc(resultUrls.length);
    ctx.metrics.storage.bytesStored.inc(resultBytes ?? 0);
  }
  emitWebhooks(ctx, taskId, t);
  ctx.metrics.tasks.completed.inc({ model: t.model });
  ctx.log.info({ taskId, accountId: t.accountId, model: t.model, channel, files: resultUrls.length }, 'task completed');
  return r;
}

export async function settleFailed(ctx: SettleContext, taskId: string, code: FailureCode, detail: FailureDetail = {}): Promise<boolean> {
  const failure = {
    errorCode: code,
    errorMessage: failureMessage(code, { channelsTried: detail.channelsTried, timeoutMs: ctx.config.TASK_TIMEOUT_MS, reason: detail.reason }),
    retryable: RETRYABLE[code],
  };
  // failTaskRow refunds the whole charge in the same transaction that won the move to failed.
  const t = await failTaskRow(ctx.db, taskId, failure);
  if (!t) {
    ctx.log.info({ taskId, errorCode: code, won: false, channel: detail.channel }, 'task already settled; failure dropped');
    return false;
  }
  await ctx.events.publish(taskId, 'failed', settledEntry(t, { status: 'failed', ...failure }));
  emitWebhooks(ctx, taskId, t);
  ctx.metrics.tasks.failed.inc({ model: t.model, error_code: code });
  ctx.metrics.tasks.refunds.inc({ model: t.model, error_code: code });
  ctx.metrics.tasks.refundedCents.inc({ model: t.model }, t.costCents);
  const fields = { taskId, accountId: t.accountId, model: t.model, errorCode: code, channel: detail.channel };
  ctx.log.info({ ...fields, cause: detail.cause, channelsTried: detail.channelsTried }, 'task failed');
  ctx.log.info({ ...fields, refundCents: t.costCents }, 'task refunded');
  return true;
}

/**
 * The settled task's poll entry for the task event (packages/queue pubsub.ts): the body a poll
 * answers, built by the one definition the gateway uses (catalog pollBody), from what the winning
 * statement wrote, so gateways answer the settled state without reading the task back. Checked
 * against the schema every reader applies (packages/queue poll-entry.ts); one that failed it would
 * not be sent, and gateways would read the task back instead.
 */
function settledEntry(
  t: SettledTask,
  outcome: { status: 'completed'; resultUrls: string[] } | { status: 'failed'; errorCode: FailureCode; errorMessage: string; retryable: boolean },
): SettledPollEntry | undefined {
  const row = { type: t.type, progress: 100, expiresAt: t.expiresAt, resultUrls: [] as string[], errorCode: null as string | null, errorMessage: null as string | null, retryable: null as boolean | null, ...outcome };
  return settledPollEntryOf({ a: t.accountId, t: t.type, b: pollBody(row) }) ?? undefined;
}
