// Settling tasks: every move of Task.status is a compare-and-set, so two workers, the timeout
// sweep and a retry racing each other cannot both win. Only the winner of the move to `failed`
// writes the refund, inside the same transaction; the unique (taskId, kind) on LedgerEntry is the
// second line of defence. Both terminal moves release the account's in-progress slot.
import type { Db } from './client';
import { newId } from './ids';

export type FailureCode = 'content_violation' | 'generation_failed' | 'no_result' | 'timeout';

export interface TaskFailure {
  errorCode: FailureCode;
  /** Human text for the poll body; clients branch on errorCode and retryable only. */
  errorMessage: string;
  retryable: boolean;
}

/** Spec 7.2: only a content violation is not worth retrying with the same input. */
export const RETRYABLE: Readonly<Record<FailureCode, boolean>> = {
  content_violation: false,
  generation_failed: true,
  no_result: true,
  timeout: true,
};

/** pending -> processing. False when the task had already moved on (or does not exist). */
export async function markProcessing(db: Db, taskId: string): Promise<boolean> {
  const n = await db.$executeRaw`
    UPDATE "Task" SET "status" = 'processing', "startedAt" = now(), "updatedAt" = now()
     WHERE "id" = ${taskId} AND "status" = 'pending'`;
  return n === 1;
}

/**
 * Records render progress of a processing task. Progress only grows and stays below 100 until the
 * task completes, so a late or reordered report never moves the bar backwards.
 */
export async function updateProgress(db: Db, taskId: string, progress: number): Promise<boolean> {
  const p = Math.max(0, Math.min(99, Math.floor(progress)));
  const n = await db.$executeRaw`
    UPDATE "Task" SET "progress" = ${p}, "updatedAt" = now()
     WHERE "id" = ${taskId} AND "status" = 'processing' AND "progress" < ${p}`;
  return n === 1;
}

/** pending|processing -> completed with the stored result URLs. False when another settlement won. */
export async function completeTask(db: Db, taskId: string, resultUrls: string[]): Promise<boolean> {
  return db.$transaction(async (tx) => {
    const won = await tx.$queryRaw<{ accountId: string }[]>`
      UPDATE "Task"
         SET "status" = 'completed', "resultUrls" = ${resultUrls}, "progress" = 100,
             "finishedAt" = now(), "updatedAt" = now()
       WHERE "id" = ${taskId} AND "status" IN ('pending', 'processing')
   RETURNING "accountId"`;
    if (won.length === 0) return false;
    await tx.$executeRaw`
      UPDATE "Account" SET "tasksInProgress" = "tasksInProgress" - 1 WHERE "id" = ${won[0].accountId}`;
    return true;
  });
}

/**
 * pending|processing -> failed, refunding the task's cost in the same transaction.
 * False when another settlement won: then nothing is written and nothing is refunded.
 */
export async function failTask(db: Db, taskId: string, failure: TaskFailure): Promise<boolean> {
  return db.$transaction(async (tx) => {
    const won = await tx.$queryRaw<{ accountId: string; costCents: number; model: string }[]>`
      UPDATE "Task"
         SET "status" = 'failed', "errorCode" = ${failure.errorCode}, "errorMessage" = ${failure.errorMessage},
             "retryable" = ${failure.retryable}, "finishedAt" = now(), "updatedAt" = now()
       WHERE "id" = ${taskId} AND "status" IN ('pending', 'processing')
   RETURNING "accountId", "costCents", "model"`;
    if (won.length === 0) return false;
    const { accountId, costCents } = won[0];
    await tx.$executeRaw`
      INSERT INTO "LedgerEntry" ("id", "accountId", "taskId", "kind", "amountCents", "reason")
      VALUES (${newId('led')}, ${accountId}, ${taskId}, 'refund', ${costCents}, ${`refund: ${failure.errorCode}`})`;
    await tx.$executeRaw`
      UPDATE "Account"
         SET "balanceCents" = "balanceCents" + ${costCents}, "tasksInProgress" = "tasksInProgress" - 1
       WHERE "id" = ${accountId}`;
    return true;
  });
}
