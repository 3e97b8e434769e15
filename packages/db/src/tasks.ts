// Task reads on the request path, in plain SQL (see client.ts for why).
import type { Db } from './client';
import type { TaskStatusName } from '@mediagen/catalog';
import { sql } from './sql';

/** The columns the client-facing task bodies are made of (apps/gateway task-view.ts). */
export interface TaskView {
  id: string;
  type: 'video' | 'image';
  status: TaskStatusName;
  progress: number;
  resultUrls: string[];
  errorCode: string | null;
  errorMessage: string | null;
  retryable: boolean | null;
  /** When a completed task's result files are deleted (null: kept forever, or not completed). */
  expiresAt: Date | null;
}

const VIEW = `"id", "type", "status", "progress", "resultUrls", "errorCode", "errorMessage", "retryable", "expiresAt"`;

// An unset list column reads as [] (as Prisma reads it).
const view = (r: TaskView): TaskView => ({ ...r, resultUrls: r.resultUrls ?? [] });

/** The task if it exists and belongs to the account; null otherwise. */
export async function findTaskView(db: Db, taskId: string, accountId: string): Promise<TaskView | null> {
  const { rows } = await sql<TaskView>(db, `SELECT ${VIEW} FROM "Task" WHERE "id" = $1 AND "accountId" = $2`, [taskId, accountId]);
  return rows.length ? view(rows[0]) : null;
}

/** The task's view and what it was charged (a submit's answer, replays included); null when not the account's. */
export async function findSubmittedTask(db: Db, taskId: string, accountId: string): Promise<(TaskView & { costCents: number }) | null> {
  const { rows } = await sql<TaskView & { costCents: number }>(db, `SELECT ${VIEW}, "costCents" FROM "Task" WHERE "id" = $1 AND "accountId" = $2`, [taskId, accountId]);
  return rows.length ? { ...view(rows[0]), costCents: Number(rows[0].costCents) } : null;
}

/** The tasks of these ids that exist, with their owners, in one statement (polls that missed the cache). */
export async function findTaskViews(db: Db, taskIds: readonly string[]): Promise<Map<string, TaskView & { accountId: string }>> {
  const { rows } = await sql<TaskView & { accountId: string }>(db, `SELECT "accountId", ${VIEW} FROM "Task" WHERE "id" = ANY($1::text[])`, [taskIds]);
  return new Map(rows.map((r) => [r.id, { ...view(r), accountId: r.accountId }]));
}

/**
 * A result's state for /files: null when the task did not complete (results are served only then:
 * a failed, refunded task has none); otherwise when its files expire (null: never) and whether the
 * expiry has passed by the database's clock, the one the retention job deletes by.
 */
export async function resultState(db: Db, taskId: string): Promise<{ expiresAt: Date | null; expired: boolean } | null> {
  const { rows } = await sql<{ status: string; expiresAt: Date | null; expired: boolean }>(
    db,
    `SELECT "status", "expiresAt", COALESCE("expiresAt" <= now(), false) AS "expired" FROM "Task" WHERE "id" = $1`,
    [taskId],
  );
  const r = rows[0];
  return r?.status === 'completed' ? { expiresAt: r.expiresAt, expired: r.expired } : null;
}

/** Whether the task completed (results are served only then: a failed, refunded task has none). */
export async function isTaskCompleted(db: Db, taskId: string): Promise<boolean> {
  const { rows } = await sql<{ status: string }>(db, `SELECT "status" FROM "Task" WHERE "id" = $1`, [taskId]);
  return rows[0]?.status === 'completed';
}
