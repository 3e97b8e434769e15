// GET /api/tasks (extension): the account's tasks, newest first, each its poll body plus taskId,
// model, createdAt and effectivePrompt (the prompt sent upstream); keyset cursor pagination (services/cursor.ts).
import { findTaskListRow, listTasks, type TaskListRow } from '@mediagen/db';
import { AppError } from '@mediagen/errors';
import type { GatewayDeps } from '../deps';
import { decodeCursor, encodeCursor } from './cursor';
import { parseQuery, taskListQuerySchema } from './listing';
import { pollBody } from './task-view';

export async function listTaskItems(deps: GatewayDeps, accountId: string, query: unknown): Promise<{ data: Record<string, unknown>[]; nextCursor: string | null }> {
  const q = parseQuery(taskListQuerySchema, query);
  const page = await listTasks(deps.db, { accountId, status: q.status, type: q.type, model: q.model, limit: q.limit, before: decodeCursor('tasks', q.cursor) });
  return {
    data: page.rows.map(listItem),
    nextCursor: encodeCursor('tasks', page.next),
  };
}

const listItem = (t: TaskListRow): Record<string, unknown> => ({ taskId: t.id, ...pollBody(t), model: t.model, createdAt: t.createdAt, effectivePrompt: t.effectivePrompt });

/** GET /api/tasks/{taskId} (extension): one task as the listing shows it; another account's task is 404. */
export async function taskItem(deps: GatewayDeps, accountId: string, taskId: string): Promise<Record<string, unknown>> {
  const t = await findTaskListRow(deps.db, taskId, accountId);
  if (!t) throw new AppError('not_found', `Task ${taskId} not found`);
  return listItem(t);
}
