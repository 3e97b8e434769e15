// Task and ledger listings (GET /api/tasks, GET /admin/tasks, GET /admin/accounts/{id}/ledger),
// keyset-paginated newest first (keyset.ts); served by the (accountId[, status], createdAt, id) indexes.
import type { Db } from './client';
import { isoOf, Keyset, keysetWhere, pageOf } from './keyset';
import { sql } from './sql';
import type { TaskView } from './tasks';
import { effectivePromptSql } from './prompt-rewrite';

export interface TaskListFilter {
  /** Required for clients; admins may list across accounts. */
  accountId?: string;
  status?: TaskView['status'];
  type?: TaskView['type'];
  model?: string;
  /** Created at or after / before these instants (console task search). */
  createdFrom?: Date;
  createdTo?: Date;
  before?: Keyset;
  limit: number;
}

const LIST_COLUMNS = `"id", "accountId", "type"::text AS "type", "status"::text AS "status", "model", "progress", "resultUrls", "errorCode",
            "errorMessage", "retryable", "expiresAt", "costCents", ${isoOf('"createdAt"')} AS "createdAt", ${isoOf('"finishedAt"')} AS "finishedAt",
            ${effectivePromptSql()} AS "effectivePrompt"`;

export interface TaskListRow extends TaskView {
  accountId: string;
  model: string;
  costCents: number;
  createdAt: string;
  finishedAt: string | null;
  /** The prompt sent upstream (docs/prompt-format.md); null while an optimize_prompt rewrite is pending. */
  effectivePrompt: string | null;
}

/** One task of the account as a listing row (GET /api/tasks/{taskId}), or null. */
export async function findTaskListRow(db: Db, taskId: string, accountId: string): Promise<TaskListRow | null> {
  const { rows } = await sql<TaskListRow>(
    db,
    `SELECT ${LIST_COLUMNS} FROM "Task" WHERE "id" = $1 AND "accountId" = $2`,
    [taskId, accountId],
  );
  return rows[0] ? { ...rows[0], resultUrls: rows[0].resultUrls ?? [] } : null;
}

// ORDER BY names the table's columns: a bare "createdAt" would be the ISO text alias of the select
// list, which no index serves (measured: a sort of the whole table, 340 ms at 100,000 tasks).
export async function listTasks(db: Db, f: TaskListFilter): Promise<{ rows: TaskListRow[]; next: Keyset | null }> {
  const where: string[] = [];
  const values: unknown[] = [];
  const eq = (col: string, v: unknown, cast = '') => {
    if (v === undefined) return;
    values.push(v);
    where.push(`"${col}" = $${values.length}${cast}`);
  };
  eq('accountId', f.accountId);
  eq('status', f.status, '::"TaskStatus"');
  eq('type', f.type, '::"TaskType"');
  eq('model', f.model);
  if (f.createdFrom) values.push(f.createdFrom.toISOString()), where.push(`"createdAt" >= $${values.length}::timestamptz`);
  if (f.createdTo) values.push(f.createdTo.toISOString()), where.push(`"createdAt" < $${values.length}::timestamptz`);
  keysetWhere(where, values, f.before);
  values.push(f.limit + 1);
  const { rows } = await sql<TaskListRow>(
    db,
    `SELECT ${LIST_COLUMNS}
       FROM "Task" ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY "Task"."createdAt" DESC, "Task"."id" DESC LIMIT $${values.length}`,
    values,
  );
  return pageOf(rows.map((r) => ({ ...r, resultUrls: r.resultUrls ?? [] })), f.limit);
}

export interface LedgerRow {
  id: string;
  kind: string;
  amountCents: number;
  taskId: string | null;
  reason: string | null;
  /** Who made the change (operator:<name>, admin-token); null for the service's charges and refunds. */
  actor: string | null;
  createdAt: string;
}

/** One keyset page of the account's ledger, newest first. */
export async function listLedgerPage(db: Db, accountId: string, limit: number, before?: Keyset): Promise<{ rows: LedgerRow[]; next: Keyset | null }> {
  const where = ['"accountId" = $1'];
  const values: unknown[] = [accountId];
  keysetWhere(where, values, before);
  values.push(limit + 1);
  const { rows } = await sql<LedgerRow>(
    db,
    `SELECT "id", "kind"::text AS "kind", "amountCents", "taskId", "reason", "actor", ${isoOf('"createdAt"')} AS "createdAt"
       FROM "LedgerEntry" WHERE ${where.join(' AND ')}
      ORDER BY "LedgerEntry"."createdAt" DESC, "LedgerEntry"."id" DESC LIMIT $${values.length}`,
    values,
  );
  // amountCents is BIGINT (pg reads it as text); cents stay far inside Number's exact range.
  return pageOf(rows.map((r) => ({ ...r, amountCents: Number(r.amountCents) })), limit);
}
