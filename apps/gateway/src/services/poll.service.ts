// Polling (spec 4.2): polls within POLL_CACHE_MS return the cached status. The cache is in
// Redis so every gateway instance serves the same answer; it remembers the owner, so another
// account's poll is still a 404. Terminal states never change, so they are cached longer.
import { AppError } from '@mediagen/errors';
import { findTaskView } from '@mediagen/db';
import { pollCacheKey } from '@mediagen/queue';
import type { GatewayDeps } from '../deps';
import { pollBody } from './task-view';

const TERMINAL_CACHE_MS = 10 * 60_000;

interface CachedPoll {
  a: string; // accountId
  t: 'video' | 'image';
  b: Record<string, unknown>;
}

const notFound = (taskId: string) => new AppError('not_found', `Task ${taskId} not found`);

export const MAX_TASK_ID_CHARS = 200;
const TASK_ID = /^[A-Za-z0-9_-]+$/;
/** Shared with the settling side, which drops the entry when a task settles (packages/queue). */
export { pollCacheKey };

/**
 * `prefetched`: the cache entry when it was already read in the request's rate-limit round trip
 * (middleware/rate-limit.ts); otherwise it is read here.
 */
export async function pollTask(
  deps: GatewayDeps,
  accountId: string,
  type: 'video' | 'image',
  taskId: string,
  prefetched?: { key: string; value: string | null },
): Promise<Record<string, unknown>> {
  // Ids are ours (UUIDs): anything else is not found without a cache or database look-up.
  if (taskId.length > MAX_TASK_ID_CHARS || !TASK_ID.test(taskId)) throw notFound(taskId.slice(0, 40).replace(/[^\x20-\x7e]/g, '?'));
  const ttl = deps.config.POLL_CACHE_MS;
  const key = pollCacheKey(deps.config.REDIS_PREFIX, taskId);
  if (ttl > 0) {
    const raw =
      prefetched?.key === key ? prefetched.value : await deps.redis.get(key).catch(() => null); // cache outage: fall through to the DB
    if (raw) {
      const c = JSON.parse(raw) as CachedPoll;
      if (c.a !== accountId || c.t !== type) throw notFound(taskId);
      return c.b;
    }
  }
  const task = await findTaskView(deps.db, taskId, accountId);
  // A task of the other type is not found at this endpoint (its URL is the other task endpoint).
  if (!task || task.type !== type) throw notFound(taskId);
  const body = pollBody(task);
  if (ttl > 0) {
    const terminal = task.status === 'completed' || task.status === 'failed';
    const entry: CachedPoll = { a: accountId, t: task.type, b: body };
    await deps.redis.set(key, JSON.stringify(entry), 'PX', terminal ? Math.max(ttl, TERMINAL_CACHE_MS) : ttl).catch(() => undefined);
  }
  return body;
}
