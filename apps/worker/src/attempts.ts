// TaskAttempt rows: one per channel tried. The upstream id is written before the job moves on
// from a submit, so a resumed job polls that render instead of starting another one.
import type { Db, TaskAttempt } from '@mediagen/db';

export type AttemptStatus =
  | 'submitting' // created; the upstream may or may not have the render (the idempotency key decides)
  | 'running' // the upstream accepted it; upstreamId is set
  | 'succeeded' // the upstream finished it; its file is being downloaded
  | 'completed' // the file is stored and the task completed
  | 'failed' // render failed or the channel refused it: the next channel is tried
  | 'violation' // explicit content flag: the task failed with content_violation
  | 'no_result' // success without a usable file
  | 'abandoned'; // the task ended otherwise (timeout) while this attempt ran

export type Attempt = TaskAttempt;

export const latestAttempt = (db: Db, taskId: string): Promise<Attempt | null> =>
  db.taskAttempt.findFirst({ where: { taskId }, orderBy: { attemptNo: 'desc' } });

/** Creates attempt `attemptNo`, or returns the one a racing worker created first. */
export async function startAttempt(db: Db, id: string, taskId: string, attemptNo: number, channelId: string): Promise<Attempt> {
  try {
    return await db.taskAttempt.create({ data: { id, taskId, attemptNo, channelId, status: 'submitting' } });
  } catch (err) {
    if ((err as { code?: string }).code !== 'P2002') throw err;
    return db.taskAttempt.findUniqueOrThrow({ where: { taskId_attemptNo: { taskId, attemptNo } } });
  }
}

export const recordUpstreamId = (db: Db, attemptId: string, upstreamId: string): Promise<Attempt> =>
  db.taskAttempt.update({ where: { id: attemptId }, data: { upstreamId, status: 'running' satisfies AttemptStatus } });

export const setAttemptStatus = (db: Db, attemptId: string, status: AttemptStatus): Promise<Attempt> =>
  db.taskAttempt.update({ where: { id: attemptId }, data: { status } });

export const finishAttempt = (db: Db, attemptId: string, status: AttemptStatus, errorKind?: string, errorMessage?: string): Promise<Attempt> =>
  db.taskAttempt.update({
    where: { id: attemptId },
    data: { status, errorKind: errorKind ?? null, errorMessage: errorMessage?.slice(0, 500) ?? null, finishedAt: new Date() },
  });
