// Reads behind the account holders' pages (packages/account), each scoped to the holder's account:
// a task of another account is not found (the page answers 404, never 403).
import type { TaskStatusName } from '@mediagen/catalog';
import type { Db } from './client';
import { isoOf } from './keyset';
import { sql } from './sql';

export interface HolderTaskRecord {
  id: string;
  type: 'video' | 'image';
  model: string;
  status: TaskStatusName;
  progress: number;
  prompt: string | null;
  resultUrls: string[];
  errorCode: string | null;
  errorMessage: string | null;
  costCents: number;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  /** The task's charge and refund (at most one each). */
  ledger: { kind: string; amountCents: number; createdAt: string }[];
}

/** What the holder may see of their task: no channel, upstream id or attempt detail. */
export async function findHolderTask(db: Db, accountId: string, taskId: string): Promise<HolderTaskRecord | null> {
  const { rows } = await sql<Omit<HolderTaskRecord, 'ledger'>>(
    db,
    `SELECT "id", "type"::text AS "type", "model", "status"::text AS "status", "progress", "params"->>'prompt' AS "prompt", "resultUrls",
            "errorCode", "errorMessage", "costCents", ${isoOf('"createdAt"')} AS "createdAt", ${isoOf('"startedAt"')} AS "startedAt",
            ${isoOf('"finishedAt"')} AS "finishedAt"
       FROM "Task" WHERE "id" = $1 AND "accountId" = $2`,
    [taskId, accountId],
  );
  if (!rows[0]) return null;
  const ledger = await sql<{ kind: string; amountCents: string; createdAt: string }>(
    db,
    `SELECT "kind"::text AS "kind", "amountCents", ${isoOf('"createdAt"')} AS "createdAt" FROM "LedgerEntry" WHERE "taskId" = $1 AND "accountId" = $2 ORDER BY "createdAt"`,
    [taskId, accountId],
  );
  return { ...rows[0], resultUrls: rows[0].resultUrls ?? [], ledger: ledger.rows.map((l) => ({ ...l, amountCents: Number(l.amountCents) })) };
}

export interface UsageDay {
  /** YYYY-MM-DD (UTC). */
  day: string;
  model: string;
  /** Charges net of refunds, in cents. */
  cents: number;
  tasks: number;
}

/**
 * Spend per UTC day and model over the last `days` days (charges minus refunds), from `SpendDay`,
 * which the charge and refund transactions keep: at most days x models rows, whatever the ledger's size.
 */
export async function usageByDayAndModel(db: Db, accountId: string, days: number): Promise<UsageDay[]> {
  const { rows } = await sql<{ day: string; model: string; cents: string; tasks: number }>(
    db,
    `SELECT to_char("day", 'YYYY-MM-DD') AS "day", "model", "cents", "tasks"
       FROM "SpendDay"
      WHERE "accountId" = $1 AND "day" >= (now() AT TIME ZONE 'UTC')::date - ($2::int - 1)
      ORDER BY 1, 2`,
    [accountId, days],
  );
  return rows.map((r) => ({ day: r.day, model: r.model, cents: Number(r.cents), tasks: r.tasks }));
}
