// Client cancels (POST /api/{type}/tasks/{taskId}/cancel): the task with its latest attempt as the
// gateway judges it, and the cancel-request mark the worker acts on (apps/worker cancel-task.ts).
import type { Db } from './client';
import { sql } from './sql';
import { OPEN_TASK_SQL } from './statuses';
import type { TaskView } from './tasks';

export interface CancelView extends TaskView {
  cancelRequested: boolean;
  /** Latest attempt: the upstream id once an upstream accepted the render. */
  upstreamId: string | null;
  attemptStatus: string | null;
  channelId: string | null;
  /** The latest attempt's submit request was sent (the upstream may have accepted it, id or not). */
  submitSent: boolean;
}

/** The account's task and its latest attempt; null when not found (or another account's). */
export async function findCancelView(db: Db, taskId: string, accountId: string): Promise<CancelView | null> {
  const { rows } = await sql<CancelView>(
    db,
    `SELECT t."id", t."type"::text AS "type", t."status"::text AS "status", t."progress", t."resultUrls", t."errorCode", t."errorMessage",
            t."retryable", (t."cancelRequestedAt" IS NOT NULL) AS "cancelRequested",
            a."upstreamId", a."status" AS "attemptStatus", a."channelId", COALESCE(a."submitSentAt" IS NOT NULL, false) AS "submitSent"
       FROM "Task" t
       LEFT JOIN LATERAL (SELECT * FROM "TaskAttempt" x WHERE x."taskId" = t."id" ORDER BY x."attemptNo" DESC LIMIT 1) a ON true
      WHERE t."id" = $1 AND t."accountId" = $2`,
    [taskId, accountId],
  );
  return rows[0] ? { ...rows[0], resultUrls: rows[0].resultUrls ?? [] } : null;
}

/**
 * Marks an unfinished task cancel-requested; false when it has finished meanwhile. From this mark
 * on no submit of the task is sent (markSubmitSent refuses), so a re-read after it tells for good
 * whether the upstream may have the render.
 */
export async function requestCancel(db: Db, taskId: string): Promise<boolean> {
  const { rowCount } = await sql(
    db,
    `UPDATE "Task" SET "cancelRequestedAt" = COALESCE("cancelRequestedAt", now()) WHERE "id" = $1 AND "status" IN (${OPEN_TASK_SQL})`,
    [taskId],
  );
  return rowCount === 1;
}

/** The upstream refused the cancel: the task carries on as if none had been asked for. */
export async function clearCancelRequest(db: Db, taskId: string): Promise<void> {
  await sql(db, `UPDATE "Task" SET "cancelRequestedAt" = NULL WHERE "id" = $1`, [taskId]);
}
