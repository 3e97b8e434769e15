// The money-moving operations of the submit path and the admin API. Each is one transaction:
// the balance update and its LedgerEntry commit together or not at all, so
// Account.balanceCents == sum(LedgerEntry.amountCents) holds for every account, always.
import type { Db } from './client';
import { newId } from './ids';
import { sql, sqlTransaction, utc } from './sql';
import type { Prisma } from './generated/client';

export interface NewTask {
  taskId: string;
  accountId: string;
  type: 'video' | 'image';
  model: string;
  params: Prisma.InputJsonValue;
  costCents: number;
  costMicros: bigint;
  billedSeconds: number | null;
  deadlineAt: Date;
  /** Set when the submit carried an idempotency id that this request claimed. */
  idempotencyKey?: string;
  /** `callback_url` of the submit (extension): where the task's event is delivered. */
  callbackUrl?: string | null;
}

/** Why a task could not be created: the gateway turns these into 402 / 429 / 404. */
export class SubmitRefused extends Error {
  constructor(
    readonly reason: 'insufficient_balance' | 'too_many_tasks' | 'account_missing',
    readonly balanceCents: number,
    readonly tasksInProgress: number,
    readonly maxConcurrentTasks: number,
  ) {
    super(reason);
  }
}

/**
 * Creates the task and its charge. The conditional UPDATE is the race-free gate for both the
 * balance and the in-progress limit: concurrent submits serialise on the account row, and each
 * sees the counter the previous one left.
 *
 * One statement does it all (a single statement is atomic, and the account row is locked only for
 * its duration): debit the account if the gate allows, then insert the task and its charge only
 * for the row the debit returned. With an idempotency id it runs inside a transaction that also
 * links the claimed record to the task, and rolls everything back if the claim has vanished.
 */
const CREATE_TASK_WITH_CHARGE = `
WITH acc AS (
  UPDATE "Account"
     SET "balanceCents" = "balanceCents" - $3, "tasksInProgress" = "tasksInProgress" + 1
   WHERE "id" = $2 AND "balanceCents" >= $3 AND "tasksInProgress" < "maxConcurrentTasks"
  RETURNING "balanceCents"
), task AS (
  INSERT INTO "Task" ("id", "accountId", "type", "model", "params", "costCents", "costMicros", "billedSeconds", "deadlineAt", "createdAt", "updatedAt", "callbackUrl")
  SELECT $1, $2, $4::"TaskType", $5, $6::jsonb, $3, $7::bigint, $8::int, $9::timestamp, $10::timestamp, $10::timestamp, $14::text FROM acc
  RETURNING "id"
), charge AS (
  INSERT INTO "LedgerEntry" ("id", "accountId", "taskId", "kind", "amountCents", "reason", "createdAt")
  SELECT $11, $2, "id", 'charge', -$3::int, $12, $10::timestamp FROM task
), idem AS (
  UPDATE "IdempotencyRecord" r SET "taskId" = task."id" FROM task
   WHERE r."accountId" = $2 AND r."key" = $13::text
  RETURNING 1
)
SELECT a."balanceCents", (SELECT count(*)::int FROM idem) AS "linked" FROM acc a`;

export async function createTaskWithCharge(db: Db, t: NewTask): Promise<{ balanceCents: number }> {
  const now = utc(new Date());
  const values = [
    t.taskId, t.accountId, t.costCents, t.type, t.model, JSON.stringify(t.params), t.costMicros.toString(), t.billedSeconds,
    utc(t.deadlineAt), now, newId('led'), `task ${t.model}`, t.idempotencyKey ?? null, t.callbackUrl ?? null,
  ];
  type Row = { balanceCents: number; linked: number };
  const rows =
    t.idempotencyKey === undefined
      ? (await sql<Row>(db, CREATE_TASK_WITH_CHARGE, values)).rows
      : await sqlTransaction(db, async (c) => {
          const r = await c.query<Row>(CREATE_TASK_WITH_CHARGE, values);
          if (r.rows.length === 1 && r.rows[0].linked !== 1)
            throw new Error(`idempotency record (${t.accountId}, ${t.idempotencyKey}) vanished before its task was created`);
          return r.rows;
        });
  if (rows.length === 0) {
    const acc = (
      await sql<{ balanceCents: number; tasksInProgress: number; maxConcurrentTasks: number }>(
        db,
        'SELECT "balanceCents", "tasksInProgress", "maxConcurrentTasks" FROM "Account" WHERE "id" = $1',
        [t.accountId],
      )
    ).rows[0];
    if (!acc) throw new SubmitRefused('account_missing', 0, 0, 0);
    // The in-progress limit is checked first: topping up would not help a caller at the limit.
    const reason = acc.tasksInProgress >= acc.maxConcurrentTasks ? 'too_many_tasks' : 'insufficient_balance';
    throw new SubmitRefused(reason, acc.balanceCents, acc.tasksInProgress, acc.maxConcurrentTasks);
  }
  return { balanceCents: Number(rows[0].balanceCents) };
}

/**
 * Admin credit: positive amounts are top-ups, negative ones adjustments. An adjustment may not
 * take the balance below zero (returns null then).
 */
export async function creditAccount(
  db: Db,
  accountId: string,
  amountCents: number,
  reason: string | null,
): Promise<{ balanceCents: number } | null> {
  return db.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ balanceCents: number }[]>`
      UPDATE "Account" SET "balanceCents" = "balanceCents" + ${amountCents}
       WHERE "id" = ${accountId} AND "balanceCents" + ${amountCents} >= 0
   RETURNING "balanceCents"`;
    if (rows.length === 0) return null;
    await tx.ledgerEntry.create({
      data: { id: newId('led'), accountId, kind: amountCents >= 0 ? 'topup' : 'adjustment', amountCents, reason },
    });
    return { balanceCents: Number(rows[0].balanceCents) };
  });
}

/** Accounts whose balance differs from the sum of their ledger (should always be empty). */
export async function ledgerDiscrepancies(db: Db): Promise<{ accountId: string; balanceCents: number; ledgerCents: number }[]> {
  const rows = await db.$queryRaw<{ accountId: string; balanceCents: number; ledgerCents: bigint }[]>`
    SELECT a."id" AS "accountId", a."balanceCents", COALESCE(SUM(l."amountCents"), 0) AS "ledgerCents"
      FROM "Account" a LEFT JOIN "LedgerEntry" l ON l."accountId" = a."id"
  GROUP BY a."id", a."balanceCents"
    HAVING a."balanceCents" <> COALESCE(SUM(l."amountCents"), 0)`;
  return rows.map((r) => ({ accountId: r.accountId, balanceCents: Number(r.balanceCents), ledgerCents: Number(r.ledgerCents) }));
}
