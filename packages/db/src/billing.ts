// The money-moving operations of the submit path and the admin API. Each is one transaction:
// the balance update and its LedgerEntry commit together or not at all, so
// Account.balanceCents == sum(LedgerEntry.amountCents) holds for every account, always.
import type { Db } from './client';
import { newId } from './ids';
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
 */
export async function createTaskWithCharge(db: Db, t: NewTask): Promise<{ balanceCents: number }> {
  return db.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ balanceCents: number }[]>`
      UPDATE "Account"
         SET "balanceCents" = "balanceCents" - ${t.costCents},
             "tasksInProgress" = "tasksInProgress" + 1
       WHERE "id" = ${t.accountId}
         AND "balanceCents" >= ${t.costCents}
         AND "tasksInProgress" < "maxConcurrentTasks"
   RETURNING "balanceCents"`;
    if (rows.length === 0) {
      const acc = await tx.account.findUnique({ where: { id: t.accountId } });
      if (!acc) throw new SubmitRefused('account_missing', 0, 0, 0);
      // The in-progress limit is checked first: topping up would not help a caller at the limit.
      const reason = acc.tasksInProgress >= acc.maxConcurrentTasks ? 'too_many_tasks' : 'insufficient_balance';
      throw new SubmitRefused(reason, acc.balanceCents, acc.tasksInProgress, acc.maxConcurrentTasks);
    }
    await tx.task.create({
      data: {
        id: t.taskId,
        accountId: t.accountId,
        type: t.type,
        model: t.model,
        params: t.params,
        costCents: t.costCents,
        costMicros: t.costMicros,
        billedSeconds: t.billedSeconds,
        deadlineAt: t.deadlineAt,
      },
    });
    await tx.ledgerEntry.create({
      data: { id: newId('led'), accountId: t.accountId, taskId: t.taskId, kind: 'charge', amountCents: -t.costCents, reason: `task ${t.model}` },
    });
    if (t.idempotencyKey !== undefined) {
      await tx.idempotencyRecord.update({
        where: { accountId_key: { accountId: t.accountId, key: t.idempotencyKey } },
        data: { taskId: t.taskId },
      });
    }
    return { balanceCents: Number(rows[0].balanceCents) };
  });
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
