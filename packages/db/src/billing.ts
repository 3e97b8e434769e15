// The money-moving operations of the submit path and the admin API. Each is one transaction:
// the balance update and its LedgerEntry commit together or not at all, so
// Account.balanceCents == sum(LedgerEntry.amountCents) holds for every account, always.
// Balances are BIGINT in the database and JS numbers here: MAX_BALANCE_CENTS keeps them exact.
import type { PoolClient } from 'pg';
import type { Db } from './client';
import { newId } from './ids';
import { sql, sqlTransaction, utc } from './sql';
import type { Prisma } from './generated/client';

/**
 * The largest balance an account may hold: $10 billion, in cents (1e12). Top-ups that would pass it
 * are refused (422 balance_limit_exceeded). Far below both BIGINT and Number.MAX_SAFE_INTEGER
 * (~9e15), so no refund or top-up can overflow and every balance is exact as a JS number.
 */
export const MAX_BALANCE_CENTS = 1_000_000_000_000;

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
  /** Set when the submit carried an idempotency id that this request claimed... */
  idempotencyKey?: string;
  /** ...with this token (claimIdempotencyKey): the link is made only while the claim is still ours. */
  claimToken?: string;
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
 * The idempotency claim this submit held was taken over (it looked stale to a later request with
 * the same id) before the task was created: nothing was written; the id now belongs to the other
 * request, and a retry with it replays that one.
 */
export class ClaimLost extends Error {
  constructor(readonly accountId: string, readonly key: string) {
    super(`idempotency claim (${accountId}, ${key}) was taken over before its task was created`);
  }
}

/**
 * Creates the task and its charge. One statement does it all (a single statement is atomic):
 * lock the account row, debit it if the gate allows (balance and in-progress limit), then insert
 * the task and its charge only for the row the debit returned. Concurrent submits serialise on the
 * account row, and each sees the counter the previous one left.
 *
 * The statement also returns the locked row as the gate saw it, so a refusal's reason comes from
 * the very state that refused it: a task that ends between the refused update and a later read
 * can no longer turn a limit refusal into a false 402.
 *
 * With an idempotency id it runs inside a transaction that links the claimed record to the task
 * only while the record still carries this request's claim token, and rolls everything back if it
 * does not.
 */
const CREATE_TASK_WITH_CHARGE = `
WITH cur AS (
  SELECT "id", "balanceCents", "tasksInProgress", "maxConcurrentTasks" FROM "Account" WHERE "id" = $2 FOR UPDATE
), acc AS (
  UPDATE "Account" a
     SET "balanceCents" = cur."balanceCents" - $3, "tasksInProgress" = cur."tasksInProgress" + 1
    FROM cur
   WHERE a."id" = cur."id" AND cur."balanceCents" >= $3 AND cur."tasksInProgress" < cur."maxConcurrentTasks"
  RETURNING a."balanceCents"
), task AS (
  INSERT INTO "Task" ("id", "accountId", "type", "model", "params", "costCents", "costMicros", "billedSeconds", "deadlineAt", "createdAt", "updatedAt", "callbackUrl")
  SELECT $1, $2, $4::"TaskType", $5, $6::jsonb, $3, $7::bigint, $8::int, $9::timestamptz, now(), now(), $14::text FROM acc
  RETURNING "id"
), charge AS (
  INSERT INTO "LedgerEntry" ("id", "accountId", "taskId", "kind", "amountCents", "reason", "createdAt")
  SELECT $10, $2, "id", 'charge', -$3::bigint, $11, now() FROM task
), spend AS (
  INSERT INTO "SpendDay" ("accountId", "day", "model", "cents", "tasks")
  SELECT $2, (now() AT TIME ZONE 'UTC')::date, $5, $3::bigint, 1 FROM task
  ON CONFLICT ("accountId", "day", "model") DO UPDATE SET "cents" = "SpendDay"."cents" + EXCLUDED."cents", "tasks" = "SpendDay"."tasks" + 1
), idem AS (
  UPDATE "IdempotencyRecord" r SET "taskId" = task."id" FROM task
   WHERE r."accountId" = $2 AND r."key" = $12::text AND r."claimToken" = $13::text AND r."taskId" IS NULL
  RETURNING 1
)
SELECT cur."balanceCents" AS "before", cur."tasksInProgress", cur."maxConcurrentTasks",
       (SELECT "balanceCents" FROM acc) AS "after", (SELECT count(*)::int FROM idem) AS "linked"
  FROM cur`;

type GateRow = { before: string; tasksInProgress: number; maxConcurrentTasks: number; after: string | null; linked: number };

export async function createTaskWithCharge(db: Db, t: NewTask): Promise<{ balanceCents: number }> {
  const values = [
    t.taskId, t.accountId, t.costCents, t.type, t.model, JSON.stringify(t.params), t.costMicros.toString(), t.billedSeconds,
    utc(t.deadlineAt), newId('led'), `task ${t.model}`, t.idempotencyKey ?? null, t.claimToken ?? null, t.callbackUrl ?? null,
  ];
  const rows =
    t.idempotencyKey === undefined
      ? (await sql<GateRow>(db, CREATE_TASK_WITH_CHARGE, values)).rows
      : await sqlTransaction(db, async (c) => {
          const r = await c.query<GateRow>(CREATE_TASK_WITH_CHARGE, values);
          // Created, but the claim is no longer ours: roll back the task and its charge.
          if (r.rows.length === 1 && r.rows[0].after !== null && r.rows[0].linked !== 1) throw new ClaimLost(t.accountId, t.idempotencyKey!);
          return r.rows;
        });
  const row = rows[0];
  if (!row) throw new SubmitRefused('account_missing', 0, 0, 0);
  if (row.after === null) {
    // The in-progress limit is checked first: topping up would not help a caller at the limit.
    const reason = row.tasksInProgress >= row.maxConcurrentTasks ? 'too_many_tasks' : 'insufficient_balance';
    throw new SubmitRefused(reason, Number(row.before), row.tasksInProgress, row.maxConcurrentTasks);
  }
  return { balanceCents: Number(row.after) };
}

export type CreditOutcome = { balanceCents: number } | { refused: 'below_zero' | 'above_maximum' };

/**
 * Admin credit: positive amounts are top-ups, negative ones adjustments. An adjustment may not
 * take the balance below zero, and nothing may take it above MAX_BALANCE_CENTS.
 */
export async function creditAccount(db: Db, accountId: string, amountCents: number, reason: string | null, actor: string | null = null): Promise<CreditOutcome> {
  if (!Number.isSafeInteger(amountCents)) throw new RangeError(`amountCents must be a safe integer, got ${amountCents}`);
  return sqlTransaction(db, (c) => creditInTransaction(c, accountId, amountCents, reason, actor));
}

/** creditAccount inside a caller's transaction (createAccountWithBalance: account and credit commit together). */
export async function creditInTransaction(c: PoolClient, accountId: string, amountCents: number, reason: string | null, actor: string | null): Promise<CreditOutcome> {
  const { rows } = await c.query<{ before: string; after: string | null }>(
    `WITH cur AS (SELECT "id", "balanceCents" FROM "Account" WHERE "id" = $1 FOR UPDATE),
          upd AS (
            UPDATE "Account" a SET "balanceCents" = cur."balanceCents" + $2::bigint FROM cur
             WHERE a."id" = cur."id" AND cur."balanceCents" + $2::bigint BETWEEN 0 AND $3::bigint
            RETURNING a."balanceCents")
     SELECT cur."balanceCents" AS "before", (SELECT "balanceCents" FROM upd) AS "after" FROM cur`,
    [accountId, amountCents, MAX_BALANCE_CENTS],
  );
  if (rows.length === 0) throw new Error(`account ${accountId} not found`);
  if (rows[0].after === null) return { refused: Number(rows[0].before) + amountCents < 0 ? 'below_zero' : 'above_maximum' };
  await c.query(
    `INSERT INTO "LedgerEntry" ("id", "accountId", "kind", "amountCents", "reason", "actor", "createdAt") VALUES ($1, $2, $3, $4, $5, $6, now())`,
    [newId('led'), accountId, amountCents >= 0 ? 'topup' : 'adjustment', amountCents, reason, actor],
  );
  return { balanceCents: Number(rows[0].after) };
}

/** The balance of an account as a JS number (exact: see MAX_BALANCE_CENTS), or null if it does not exist. */
export async function accountBalance(db: Db, accountId: string): Promise<number | null> {
  const { rows } = await sql<{ balanceCents: string }>(db, 'SELECT "balanceCents" FROM "Account" WHERE "id" = $1', [accountId]);
  return rows.length ? Number(rows[0].balanceCents) : null;
}

/** Accounts whose balance differs from the sum of their ledger (should always be empty). */
export async function ledgerDiscrepancies(db: Db): Promise<{ accountId: string; balanceCents: number; ledgerCents: number }[]> {
  const { rows } = await sql<{ accountId: string; balanceCents: string; ledgerCents: string }>(
    db,
    `SELECT a."id" AS "accountId", a."balanceCents", COALESCE(SUM(l."amountCents"), 0) AS "ledgerCents"
       FROM "Account" a LEFT JOIN "LedgerEntry" l ON l."accountId" = a."id"
   GROUP BY a."id", a."balanceCents"
     HAVING a."balanceCents" <> COALESCE(SUM(l."amountCents"), 0)`,
  );
  return rows.map((r) => ({ accountId: r.accountId, balanceCents: Number(r.balanceCents), ledgerCents: Number(r.ledgerCents) }));
}
