// Console sessions past their expiry are refused at once (findSession), but their rows stay until
// this job deletes them: hourly, in batches of RETENTION_BATCH by the expiresAt index, so no
// statement holds many row locks. Safe to run on several workers at once and again after a crash
// (a second run finds nothing to delete).
import { deleteSessionsExpiredBefore } from '@mediagen/db';
import type { WorkerContext } from './context';

/** Sessions last 8 hours; an hour's delay keeps the table within a working day's sign-ins. */
export const EXPIRE_SESSIONS_EVERY_MS = 3_600_000;

export async function expireSessions(ctx: Pick<WorkerContext, 'db' | 'config'>, now = new Date()): Promise<{ sessionsDeleted: number }> {
  let sessionsDeleted = 0;
  for (let i = 0; i < 100; i++) {
    const n = await deleteSessionsExpiredBefore(ctx.db, now, ctx.config.RETENTION_BATCH);
    sessionsDeleted += n;
    if (n < ctx.config.RETENTION_BATCH) break;
  }
  return { sessionsDeleted };
}
