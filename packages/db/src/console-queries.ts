// Queries behind the operators' console (packages/console) that the admin API did not need yet:
// account search, and creating an account with its opening balance in one transaction.
import type { Db } from './client';
import { newId } from './ids';
import { isoOf, Keyset, keysetWhere, pageOf } from './keyset';
import { sql, sqlTransaction } from './sql';
import { creditInTransaction, CreditOutcome } from './billing';
import type { AccountLimits } from './accounts';
import { AuditContext, recordAuditIn } from './audit';

export interface AccountListRow {
  id: string;
  name: string;
  balanceCents: number;
  tasksInProgress: number;
  maxConcurrentTasks: number;
  createdAt: string;
}

/** Accounts newest first, optionally those whose id or name contains `search` (case-insensitive). */
export async function listAccounts(db: Db, f: { search?: string; before?: Keyset; limit: number }): Promise<{ rows: AccountListRow[]; next: Keyset | null }> {
  const where: string[] = [];
  const values: unknown[] = [];
  if (f.search) {
    values.push(`%${f.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    where.push(`("id" ILIKE $${values.length} OR "name" ILIKE $${values.length})`);
  }
  keysetWhere(where, values, f.before);
  values.push(f.limit + 1);
  const { rows } = await sql<AccountListRow>(
    db,
    `SELECT "id", "name", "balanceCents", "tasksInProgress", "maxConcurrentTasks", ${isoOf('"createdAt"')} AS "createdAt"
       FROM "Account" ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY "Account"."createdAt" DESC, "Account"."id" DESC LIMIT $${values.length}`,
    values,
  );
  return pageOf(rows.map((r) => ({ ...r, balanceCents: Number(r.balanceCents) })), f.limit);
}

/**
 * The account and its opening balance (a ledger top-up) commit together: no account is ever seen
 * with a balance its ledger does not explain, or without the balance it was created with.
 */
export async function createAccountWithBalance(
  db: Db,
  fields: { name: string; balanceCents?: number } & AccountLimits,
  actor: string | null,
  audit?: AuditContext,
): Promise<{ id: string; outcome: CreditOutcome | null }> {
  const id = newId('acc');
  return sqlTransaction(db, async (c) => {
    await c.query('INSERT INTO "Account" ("id", "name", "maxConcurrentTasks", "rateLimitPerMinute") VALUES ($1, $2, COALESCE($3, 20), $4)', [
      id,
      fields.name,
      fields.maxConcurrentTasks ?? null,
      fields.rateLimitPerMinute ?? null,
    ]);
    if (audit) {
      const after = { name: fields.name, maxConcurrentTasks: fields.maxConcurrentTasks ?? 20, rateLimitPerMinute: fields.rateLimitPerMinute ?? null, balanceCents: fields.balanceCents ?? 0 };
      await recordAuditIn(c, { ...audit, action: 'account.create', targetType: 'account', targetId: id, accountId: id, after });
    }
    if (!fields.balanceCents) return { id, outcome: null };
    const outcome = await creditInTransaction(c, id, fields.balanceCents, 'initial balance', actor);
    if ('refused' in outcome) throw new Error(`opening balance refused: ${outcome.refused}`);
    return { id, outcome };
  });
}

export interface TaskLedgerRow {
  kind: string;
  amountCents: number;
  reason: string | null;
  createdAt: Date;
}

/** The charge and refund of one task (at most one each), for its timeline. */
export async function ledgerForTask(db: Db, taskId: string): Promise<TaskLedgerRow[]> {
  const rows = await db.ledgerEntry.findMany({
    where: { taskId },
    orderBy: { createdAt: 'asc' },
    select: { kind: true, amountCents: true, reason: true, createdAt: true },
  });
  return rows.map((r) => ({ ...r, amountCents: Number(r.amountCents) }));
}

export interface ChannelLatency {
  channelId: string;
  finished: number;
  p50Seconds: number | null;
  p95Seconds: number | null;
}

/** Median and 95th percentile attempt duration (start to finish) per channel over the last `minutes`. */
export async function channelLatencies(db: Db, minutes: number): Promise<Map<string, ChannelLatency>> {
  const { rows } = await sql<{ channelId: string; finished: string; p50: number | null; p95: number | null }>(
    db,
    `SELECT "channelId", count(*) AS "finished",
            percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM ("finishedAt" - "createdAt"))) AS "p50",
            percentile_cont(0.95) WITHIN GROUP (ORDER BY extract(epoch FROM ("finishedAt" - "createdAt"))) AS "p95"
       FROM "TaskAttempt" WHERE "finishedAt" >= now() - make_interval(mins => $1) GROUP BY "channelId"`,
    [minutes],
  );
  return new Map(rows.map((r) => [r.channelId, { channelId: r.channelId, finished: Number(r.finished), p50Seconds: r.p50, p95Seconds: r.p95 }]));
}
