// Settling tasks: every move of Task.status is a compare-and-set, so two workers, the timeout
// sweep and a retry racing each other cannot both win. Only the winner of the move to `failed`
// writes the refund, inside the same transaction; the unique (taskId, kind) on LedgerEntry is the
// second line of defence. Both terminal moves release the account's in-progress slot.
// Plain SQL on the pool (sql.ts): these run several times per task in the worker's steps.
import type { RenderUsage } from './attempts';
import type { Db } from './client';
import { newId } from './ids';
import { sql, sqlTransaction } from './sql';
import { OPEN_TASK_SQL, type FailureCode } from './statuses';


export interface TaskFailure {
  errorCode: FailureCode;
  /** Human text for the poll body; clients branch on errorCode and retryable only. */
  errorMessage: string;
  retryable: boolean;
}

/** Only a content violation is not worth retrying with the same input (the spec's task failure codes). */
export const RETRYABLE: Readonly<Record<FailureCode, boolean>> = {
  content_violation: false,
  generation_failed: true,
  no_result: true,
  timeout: true,
  /** The client asked for it (POST .../cancel); retrying would only repeat what they stopped. */
  cancelled: false,
};

/** pending -> processing. False when the task had already moved on (or does not exist). */
export async function markProcessing(db: Db, taskId: string): Promise<boolean> {
  const { rowCount } = await sql(
    db,
    `UPDATE "Task" SET "status" = 'processing', "startedAt" = now(), "updatedAt" = now()
      WHERE "id" = $1 AND "status" = 'pending'`,
    [taskId],
  );
  return rowCount === 1;
}

/**
 * Records render progress of a processing task. Progress only grows and stays below 100 until the
 * task completes, so a late or reordered report never moves the bar backwards.
 */
export async function updateProgress(db: Db, taskId: string, progress: number): Promise<boolean> {
  const p = Math.max(0, Math.min(99, Math.floor(progress)));
  const { rowCount } = await sql(
    db,
    `UPDATE "Task" SET "progress" = $2, "updatedAt" = now()
      WHERE "id" = $1 AND "status" = 'processing' AND "progress" < $2`,
    [taskId, p],
  );
  return rowCount === 1;
}

/**
 * The settled task as the winning statement left it: what the settle path needs after the commit
 * (counters, log lines, the poll entry it hands to gateways) without reading the row again.
 */
export interface SettledTask {
  accountId: string;
  type: 'video' | 'image';
  model: string;
  costCents: number;
  /** Completed tasks: when the result files expire (null: kept forever). Failed tasks: null. */
  expiresAt: Date | null;
  /**
   * The task had no webhook to send (no callbackUrl, no endpoint of its account), so the settling
   * statement marked its events emitted itself (packages/db webhook-outbox.ts): the settle path
   * skips the outbox step, one statement (and commit) fewer for most tasks.
   */
  eventsEmitted: boolean;
}

/**
 * `eventsEmittedAt` for the statement that settles task `t`: now when the task has nothing to
 * send (webhook-outbox.ts MARK_WHEN_NOTHING_TO_SEND, the same condition), else left unset for
 * the outbox step.
 */
const EVENTS_MARK_SQL = `"eventsEmittedAt" = CASE WHEN t."callbackUrl" IS NULL AND NOT EXISTS (
                 SELECT 1 FROM "WebhookEndpoint" e WHERE e."accountId" = t."accountId" AND e."deletedAt" IS NULL AND e."url" IS NOT NULL)
               THEN now() END`;

/** What a completion stores beside the URLs (docs/data-retention.md). */
export interface CompletionOptions {
  /** The service's result retention (RESULT_RETENTION_SECONDS; 0 keeps forever); an account's own setting wins. */
  retentionSeconds: number;
  /** Bytes of the stored result files, for the storage-growth figures. */
  resultBytes?: number;
}

/** pending|processing -> completed with the stored result URLs. False when another settlement won. */
export async function completeTask(db: Db, taskId: string, resultUrls: string[], opts: CompletionOptions = { retentionSeconds: 0 }): Promise<boolean> {
  return (await completeTaskRow(db, taskId, resultUrls, opts)) !== null;
}

/** completeTask, answering the settled task (null when another settlement won). */
export async function completeTaskRow(db: Db, taskId: string, resultUrls: string[], opts: CompletionOptions): Promise<SettledTask | null> {
  const { rows } = await sql<SettledTask>(db, completionSql(''), [taskId, resultUrls, opts.retentionSeconds, opts.resultBytes ?? null]);
  return rows.length === 1 ? rows[0] : null;
}

/**
 * The attempt whose render a completion stores. `from`: the status it must still have, `running`
 * (a polled render that just finished: its usage is written here) or `succeeded` (a collection
 * resumed after a run died: its usage was written then).
 */
export interface CompletingAttempt {
  id: string;
  from: 'running' | 'succeeded';
  usage?: RenderUsage;
}

/**
 * completeTaskRow and the attempt's close in one statement: the attempt moves from `from` to
 * `completed` with its usage, and the task completes only if it did. Written as separate statements
 * (the success mark, then the completion, then the close) this cost two more commits per task, one
 * of them between the stored file and the completion (docs/benchmark.md, "One statement settles a
 * polled render"). `attemptKept` false: the attempt had been closed meanwhile (a cancel, the timeout
 * sweep, another run), nothing was written and the caller drops the files. Like the statements it
 * replaces, the attempt's move does not depend on the task's: an attempt kept while another
 * settlement won the task is still closed as completed, and `task` is null.
 */
export async function completeAttemptAndTask(
  db: Db,
  taskId: string,
  attempt: CompletingAttempt,
  resultUrls: string[],
  opts: CompletionOptions,
): Promise<{ attemptKept: boolean; task: SettledTask | null }> {
  const u = attempt.usage;
  const cost = u?.costMicroUsd === undefined ? null : String(Math.round(u.costMicroUsd));
  // The task's columns are null when the attempt was kept but the task not won (the LEFT JOIN).
  const { rows } = await sql<Omit<SettledTask, 'accountId'> & { accountId: string | null; attemptKept: boolean }>(db, completionSql(ATTEMPT_GUARD), [
    taskId,
    resultUrls,
    opts.retentionSeconds,
    opts.resultBytes ?? null,
    attempt.id,
    attempt.from,
    u?.units ?? null,
    u?.amount ?? null,
    cost,
  ]);
  const row = rows[0];
  if (!row?.attemptKept) return { attemptKept: false, task: null };
  if (row.accountId === null) return { attemptKept: true, task: null };
  return { attemptKept: true, task: { accountId: row.accountId, type: row.type, model: row.model, costCents: row.costCents, expiresAt: row.expiresAt, eventsEmitted: row.eventsEmitted } };
}

/** The attempt's move for completeAttemptAndTask ($5 id, $6 the status it must have, $7-$9 usage). */
const ATTEMPT_GUARD = `att AS (
       UPDATE "TaskAttempt" SET "status" = 'completed', "finishedAt" = now(), "errorKind" = NULL, "errorMessage" = NULL,
              "usageUnits" = COALESCE($7, "usageUnits"), "usageAmount" = COALESCE($8::double precision, "usageAmount"),
              "upstreamCostMicros" = COALESCE($9::bigint, "upstreamCostMicros")
        WHERE "id" = $5 AND "status" = $6
       RETURNING 1
     ), `;

/**
 * One statement: the compare-and-set, the expiry stamp (the account's retention, else the
 * service's; 0 keeps forever), the counter move and the day's stored-files figure commit together,
 * so only the winner counts the files. With the attempt's guard (`att`), the task moves only if the
 * attempt did, and the answer is one row saying whether it did, with the task's columns null when
 * the task was not won.
 */
function completionSql(attemptGuard: string): string {
  const guarded = attemptGuard !== '';
  return `WITH ${attemptGuard}won AS (
       UPDATE "Task" t
          SET "status" = 'completed', "resultUrls" = $2::text[], "progress" = 100,
              "finishedAt" = now(), "updatedAt" = now(), "resultBytes" = $4::bigint, ${EVENTS_MARK_SQL},
              "expiresAt" = (SELECT CASE WHEN s > 0 THEN now() + make_interval(secs => s) END
                               FROM (SELECT COALESCE(a."resultRetentionSeconds", $3::int) AS s FROM "Account" a WHERE a."id" = t."accountId") r)
        WHERE t."id" = $1 AND t."status" IN (${OPEN_TASK_SQL})${guarded ? ' AND EXISTS (SELECT 1 FROM att)' : ''}
       RETURNING t."accountId", t."type", t."model", t."costCents", t."expiresAt", t."eventsEmittedAt" IS NOT NULL AS "eventsEmitted"
     ), stored AS (
       INSERT INTO "StorageDay" ("day", "filesStored", "bytesStored")
       SELECT (now() AT TIME ZONE 'UTC')::date, cardinality($2::text[]), COALESCE($4::bigint, 0) FROM won
       ON CONFLICT ("day") DO UPDATE SET "filesStored" = "StorageDay"."filesStored" + EXCLUDED."filesStored",
                                         "bytesStored" = "StorageDay"."bytesStored" + EXCLUDED."bytesStored"
     ), settled AS (
       UPDATE "Account" a SET "tasksInProgress" = a."tasksInProgress" - 1 FROM won WHERE a."id" = won."accountId"
       RETURNING won."accountId", won."type", won."model", won."costCents", won."expiresAt", won."eventsEmitted"
     )
     ${guarded ? `SELECT EXISTS (SELECT 1 FROM att) AS "attemptKept", settled.* FROM (SELECT 1) one LEFT JOIN settled ON true` : 'SELECT * FROM settled'}`;
}

/**
 * pending|processing -> failed, refunding the task's cost in the same transaction.
 * False when another settlement won: then nothing is written and nothing is refunded.
 */
export async function failTask(db: Db, taskId: string, failure: TaskFailure): Promise<boolean> {
  return (await failTaskRow(db, taskId, failure)) !== null;
}

/** failTask, answering the settled task (null when another settlement won). */
export async function failTaskRow(db: Db, taskId: string, failure: TaskFailure): Promise<SettledTask | null> {
  return sqlTransaction(db, async (c) => {
    const won = await c.query<SettledTask>(
      `UPDATE "Task" t
          SET "status" = 'failed', "errorCode" = $2, "errorMessage" = $3,
              "retryable" = $4, "finishedAt" = now(), "updatedAt" = now(), ${EVENTS_MARK_SQL}
        WHERE t."id" = $1 AND t."status" IN (${OPEN_TASK_SQL})
       RETURNING t."accountId", t."type", t."model", t."costCents", NULL::timestamptz AS "expiresAt", t."eventsEmittedAt" IS NOT NULL AS "eventsEmitted"`,
      [taskId, failure.errorCode, failure.errorMessage, failure.retryable],
    );
    if (won.rows.length === 0) return null;
    const { accountId, costCents } = won.rows[0];
    await c.query(
      `INSERT INTO "LedgerEntry" ("id", "accountId", "taskId", "kind", "amountCents", "reason")
       VALUES ($1, $2, $3, 'refund', $4, $5)`,
      [newId('led'), accountId, taskId, costCents, `refund: ${failure.errorCode}`],
    );
    await c.query(
      `UPDATE "Account"
          SET "balanceCents" = "balanceCents" + $2, "tasksInProgress" = "tasksInProgress" - 1
        WHERE "id" = $1`,
      [accountId, costCents],
    );
    // The usage page's per-day sums (after the account's row, the lock order of the charge).
    await c.query(
      `INSERT INTO "SpendDay" ("accountId", "day", "model", "cents", "tasks") VALUES ($1, (now() AT TIME ZONE 'UTC')::date, $2, -$3::bigint, 0)
       ON CONFLICT ("accountId", "day", "model") DO UPDATE SET "cents" = "SpendDay"."cents" + EXCLUDED."cents"`,
      [accountId, won.rows[0].model, costCents],
    );
    return won.rows[0];
  });
}
