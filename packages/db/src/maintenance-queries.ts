// The task scans behind the worker's housekeeping jobs (timeout sweep, reconciler). Both read ids
// only, in batches, so a backlog of 10,000 unfinished tasks costs a few small queries.
import type { Db } from './client';
import { OPEN_TASK_STATUSES } from '@mediagen/catalog';

/** Unfinished tasks whose deadline has passed, oldest deadline first; `exclude`: ids to skip this run. */
export async function overdueTaskIds(db: Db, now: Date, limit: number, exclude: string[] = []): Promise<string[]> {
  const rows = await db.task.findMany({
    where: { status: { in: [...OPEN_TASK_STATUSES] }, deadlineAt: { lt: now }, ...(exclude.length ? { id: { notIn: exclude } } : {}) },
    select: { id: true },
    orderBy: { deadlineAt: 'asc' },
    take: limit,
  });
  return rows.map((r) => r.id);
}

/** Unfinished tasks created before `createdBefore`, in id order after `afterId` (keyset paging). */
export async function unfinishedTaskIds(db: Db, createdBefore: Date, afterId: string, limit: number): Promise<string[]> {
  const rows = await db.task.findMany({
    where: { status: { in: [...OPEN_TASK_STATUSES] }, createdAt: { lt: createdBefore }, id: { gt: afterId } },
    select: { id: true },
    orderBy: { id: 'asc' },
    take: limit,
  });
  return rows.map((r) => r.id);
}
