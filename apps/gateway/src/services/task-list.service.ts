// GET /api/tasks (extension): the account's tasks, newest first, each its poll body plus taskId,
// model, createdAt and effectivePrompt (the prompt sent upstream); keyset cursor pagination (services/cursor.ts).
import { listTasks } from '@mediagen/db';
import type { GatewayDeps } from '../deps';
import { decodeCursor, encodeCursor } from './cursor';
import { parseQuery, taskListQuerySchema } from './listing';
import { pollBody } from './task-view';

export async function listTaskItems(deps: GatewayDeps, accountId: string, query: unknown): Promise<{ data: Record<string, unknown>[]; nextCursor: string | null }> {
  const q = parseQuery(taskListQuerySchema, query);
  const page = await listTasks(deps.db, { accountId, status: q.status, type: q.type, model: q.model, limit: q.limit, before: decodeCursor('tasks', q.cursor) });
  return {
    data: page.rows.map((t) => ({ taskId: t.id, ...pollBody(t), model: t.model, createdAt: t.createdAt, effectivePrompt: t.effectivePrompt })),
    nextCursor: encodeCursor('tasks', page.next),
  };
}
