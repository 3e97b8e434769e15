// Finding a Seedance task whose create answer was lost (providers.md 1.1: the list endpoint
// `GET /contents/generations/tasks?page_num&page_size&filter.model=`, answering `{items, total}`
// with full task objects). ModelArk takes no client reference and echoes neither the prompt nor the
// callback URL, but every task echoes its `seed`: a request without a client seed carries one
// derived from the attempt (seedanceSeed), which names the attempt's task. A client's own seed is
// not ours alone, so then only a single task matching seed, ratio, duration and resolution is taken.
import { seedanceTaskSchema, type SeedanceTask } from './modelark-schemas';

export interface SeedanceOrphanQuery {
  seed: number;
  /** The seed was derived from the attempt (unique to it), not chosen by the client. */
  ownSeed: boolean;
  ratio: string;
  duration?: number;
  resolution?: string;
  /** Epoch ms: tasks created before cannot be this attempt's. */
  since: number;
}

/** Whether a listed task is the one the lost submit created; fields a task omits are not held against it. */
export function isSeedanceOrphan(task: SeedanceTask, q: SeedanceOrphanQuery): boolean {
  if (!task.id || task.seed !== q.seed) return false;
  if (typeof task.created_at === 'number' && task.created_at * 1000 < q.since) return false;
  if (task.ratio && task.ratio !== q.ratio) return false;
  if (q.duration !== undefined && typeof task.duration === 'number' && task.duration > 0 && task.duration !== q.duration) return false;
  if (q.resolution && task.resolution && task.resolution.toLowerCase() !== q.resolution.toLowerCase()) return false;
  return true;
}

/** The listed tasks that match; unreadable entries are skipped. */
export function seedanceOrphans(items: readonly unknown[], q: SeedanceOrphanQuery): string[] {
  const ids: string[] = [];
  for (const item of items) {
    const t = seedanceTaskSchema.safeParse(item);
    if (t.success && isSeedanceOrphan(t.data, q)) ids.push(t.data.id!);
  }
  return ids;
}

/** Whether a page holds only tasks older than the window (lists come newest first): no need to read on. */
export function pageBeforeWindow(items: readonly unknown[], since: number): boolean {
  if (!items.length) return true;
  return items.every((item) => {
    const t = seedanceTaskSchema.safeParse(item);
    return t.success && typeof t.data.created_at === 'number' && t.data.created_at * 1000 < since;
  });
}
