// Console sessions past their expiry are refused at once (findSession), but their rows stay until
// this job deletes them: hourly, one DELETE by the expiresAt index. Safe to run on several workers
// at once and again after a crash (a second run finds nothing to delete).
import { deleteExpiredHolderRows, deleteExpiredSessions } from '@mediagen/db';
import type { WorkerContext } from './context';

/** Sessions last 8 hours; an hour's delay keeps the table within a working day's sign-ins. */
export const EXPIRE_SESSIONS_EVERY_MS = 3_600_000;

/** Operators' and account holders' sessions, and account holders' spent emailed links. */
export async function expireSessions(ctx: Pick<WorkerContext, 'db'>): Promise<{ sessionsDeleted: number; linksDeleted: number }> {
  const operators = await deleteExpiredSessions(ctx.db);
  const holders = await deleteExpiredHolderRows(ctx.db);
  return { sessionsDeleted: operators + holders.sessions, linksDeleted: holders.links };
}
