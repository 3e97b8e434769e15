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
}

const VIEW = `"id", "type", "status", "progress", "resultUrls", "errorCode", "errorMessage", "retryable"`;

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

/** Whether the task completed (results are served only then: a failed, refunded task has none). */
export async function isTaskCompleted(db: Db, taskId: string): Promise<boolean> {
  const { rows } = await sql<{ status: string }>(db, `SELECT "status" FROM "Task" WHERE "id" = $1`, [taskId]);
  return rows[0]?.status === 'completed';
}
