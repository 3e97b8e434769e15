// Keeps the operational tables bounded (docs/data-retention.md): each entry deletes rows older
// than its retention, `RETENTION_BATCH` rows per statement through an index on the column it
// walks, so no statement locks much or scans a table, until none is left or the run's budget of
// statements is spent (the next run goes on). Safe on several workers at once and after a crash:
// a DELETE of rows already gone deletes nothing. The ledger and the tasks are never pruned.
// A table with its own job elsewhere (the audit trail's deleteAuditEventsBefore) fits the same
// shape: a prune function and a retention in days.
import type { Config } from '@mediagen/config';
import {
  Db,
  deleteAdminIdempotencyRecordsBefore,
  deleteAttemptsBefore,
  deleteIdempotencyRecordsBefore,
  deleteWebhookDeliveriesBefore,
} from '@mediagen/db';
import type { WorkerContext } from './context';

const DAY_MS = 86_400_000;

export interface TablePrune {
  /** The label of the rows-deleted metric and of the run's result. */
  table: string;
  /** Days a row is kept; 0 keeps them forever. */
  retentionDays: (config: Config) => number;
  prune: (db: Db, before: Date, limit: number) => Promise<number>;
}

export const TABLE_PRUNES: readonly TablePrune[] = [
  { table: 'TaskAttempt', retentionDays: (c) => c.ATTEMPT_RETENTION_DAYS, prune: deleteAttemptsBefore },
  { table: 'WebhookDelivery', retentionDays: (c) => c.WEBHOOK_DELIVERY_RETENTION_DAYS, prune: deleteWebhookDeliveriesBefore },
  { table: 'IdempotencyRecord', retentionDays: (c) => c.IDEMPOTENCY_RETENTION_DAYS, prune: deleteIdempotencyRecordsBefore },
  { table: 'AdminIdempotencyRecord', retentionDays: (c) => c.IDEMPOTENCY_RETENTION_DAYS, prune: deleteAdminIdempotencyRecordsBefore },
];

/** One run over every table; `now` is injectable for tests. */
export async function pruneTables(
  ctx: Pick<WorkerContext, 'db' | 'config' | 'log'> & { metrics?: WorkerContext['metrics'] },
  now = new Date(),
  prunes: readonly TablePrune[] = TABLE_PRUNES,
  maxStatements = 50,
): Promise<Record<string, number>> {
  const deleted: Record<string, number> = {};
  for (const p of prunes) {
    const days = p.retentionDays(ctx.config);
    if (days <= 0) continue;
    const before = new Date(now.getTime() - days * DAY_MS);
    let n = 0;
    for (let i = 0; i < maxStatements; i++) {
      const got = await p.prune(ctx.db, before, ctx.config.RETENTION_BATCH);
      n += got;
      if (got < ctx.config.RETENTION_BATCH) break;
    }
    deleted[p.table] = n;
    if (n > 0) ctx.metrics?.storage.rowsDeleted.inc({ table: p.table }, n);
  }
  if (Object.values(deleted).some((n) => n > 0)) ctx.log.info({ deleted }, 'old operational rows deleted');
  return deleted;
}
