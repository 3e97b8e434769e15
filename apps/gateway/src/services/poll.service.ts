// Polling: polls within POLL_CACHE_MS return the cached status. The cache is shared by
// every gateway instance (the Redis entry) and copied into each one until the shared entry expires
// (poll-cache.ts says how they never disagree); it remembers the owner, so another account's poll
// is still a 404.
import type { Application } from 'express';
import { AppError } from '@mediagen/errors';
import type { GatewayDeps } from '../deps';
import { pollBody } from './task-view';
import { PollCache, PollEntry } from './poll-cache';

const notFound = (taskId: string) => new AppError('not_found', `Task ${taskId} not found`);

export const MAX_TASK_ID_CHARS = 200;
const TASK_ID = /^[A-Za-z0-9_-]+$/;

const owned = (e: PollEntry, accountId: string, type: 'video' | 'image', taskId: string): PollEntry => {
  // A task of the other type is not found at this endpoint (its URL is the other task endpoint).
  if (e.accountId !== accountId || e.type !== type) throw notFound(taskId);
  return e;
};

/** The entry's ETag as Express would compute it for its body, once per entry ('' with ETags off). */
export function entryEtag(app: Application, e: PollEntry): string {
  if (e.etag === undefined) {
    const etagFn = app.get('etag fn') as ((body: Buffer) => string) | undefined;
    e.etag = etagFn ? etagFn(e.json) : '';
  }
  return e.etag;
}

/** The answer from this gateway's copy of the shared entry, or undefined (then call pollTask). */
export function pollLocal(cache: PollCache, accountId: string, type: 'video' | 'image', taskId: string): PollEntry | undefined {
  const e = cache.ttlMs > 0 ? cache.localCopy(taskId) : undefined;
  return e && owned(e, accountId, type, taskId);
}

export async function pollTask(deps: GatewayDeps, accountId: string, type: 'video' | 'image', taskId: string): Promise<PollEntry> {
  // Ids are ours (UUIDs): anything else is not found without a cache or database look-up.
  if (taskId.length > MAX_TASK_ID_CHARS || !TASK_ID.test(taskId)) throw notFound(taskId.slice(0, 40).replace(/[^\x20-\x7e]/g, '?'));
  const cache = deps.pollCache;
  if (cache.ttlMs <= 0) return owned(PollCache.uncached(accountId, type, await readBody(deps, accountId, type, taskId)), accountId, type, taskId);
  const local = pollLocal(cache, accountId, type, taskId);
  if (local) return local;
  // After this gateway's own copy expired, the shared entry has expired too: one round trip less.
  if (!cache.dropExpired(taskId)) {
    const shared = await cache.readShared(taskId).catch(() => null); // cache outage: fall through to the DB
    if (shared) return owned(shared, accountId, type, taskId);
  }
  // Twice at most: a task event that arrives during the first read makes its answer stale.
  let body!: Record<string, unknown>;
  for (let i = 0; i < 2; i++) {
    body = await readBody(deps, accountId, type, taskId);
    const filled = await cache.fill(taskId, accountId, type, body).catch(() => PollCache.uncached(accountId, type, body));
    if (filled) return owned(filled, accountId, type, taskId);
  }
  return PollCache.uncached(accountId, type, body);
}

async function readBody(deps: GatewayDeps, accountId: string, type: 'video' | 'image', taskId: string): Promise<Record<string, unknown>> {
  const task = await deps.taskReads.get(taskId);
  if (!task || task.accountId !== accountId || task.type !== type) throw notFound(taskId);
  return pollBody(task);
}
