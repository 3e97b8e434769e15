// Read-backs after a task settled, for counters and log lines only (they never decide anything).
// Plain SQL: it runs once per settled task on the worker's hot path.
import type { Db } from './client';
import { sql } from './sql';

export interface TaskSummary {
  model: string;
  accountId: string;
  costCents: number;
}

/** Model, account and cost of a task, or null when it does not exist. */
export async function taskSummary(db: Db, taskId: string): Promise<TaskSummary | null> {
  const { rows } = await sql<TaskSummary>(db, `SELECT "model", "accountId", "costCents" FROM "Task" WHERE "id" = $1`, [taskId]);
  return rows[0] ?? null;
}

