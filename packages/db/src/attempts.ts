// TaskAttempt rows: one per channel tried. The upstream id is written before the job moves on
// from a submit, so a resumed job polls that render instead of starting another one.
// Raw SQL on purpose: these run on every step of every task, and Prisma's query compiler costs
// more CPU than the queries themselves (measured: ~45% of a worker's CPU before the change). The
// ones on an answers-at-once submit's path (loadTask, startAttempt, markSubmitSent,
// recordSucceeded) go straight to the pg pool (sql.ts): ~0.3 ms less per query than $queryRaw.
import type { Db } from './client';
import { sql } from './sql';

export type AttemptStatus =
  | 'submitting' // created; the upstream may or may not have the render (the idempotency key decides)
  | 'running' // the upstream accepted it; upstreamId is set
  | 'succeeded' // the upstream finished it; its file is being downloaded
  | 'completed' // the file is stored and the task completed
  | 'failed' // render failed or the channel refused it: the next channel is tried
  | 'violation' // explicit content flag: the task failed with content_violation
  | 'no_result' // success without a usable file
  | 'lost' // the upstream no longer knows the render (404 on poll): one fresh attempt on the same channel
  | 'abandoned'; // the task ended otherwise (timeout) while this attempt ran

export interface Attempt {
  id: string;
  taskId: string;
  attemptNo: number;
  channelId: string;
  upstreamId: string | null;
  status: AttemptStatus;
  createdAt: Date;
  /** When the submit request was first sent (null: never sent, so submitting cannot double a render). */
  submitSentAt?: Date | null;
}

export interface TaskWithAttempt {
  id: string;
  accountId: string;
  status: string;
  model: string;
  params: unknown;
  progress: number;
  deadlineAt: Date;
  /** POST .../cancel asked for an upstream cancel (extension): the next step cancels and settles. */
  cancelRequested: boolean;
  errorCode: string | null;
  attempt: Attempt | null;
}

/** The task and its latest attempt, in one round trip. */
export async function loadTask(db: Db, taskId: string): Promise<TaskWithAttempt | null> {
  const { rows } = await sql<Omit<TaskWithAttempt, 'attempt'> & { aId: string | null; aNo: number; aChannel: string; aUpstream: string | null; aStatus: AttemptStatus; aCreated: Date; aSent: Date | null }>(
    db,
    `SELECT t."id", t."accountId", t."status"::text AS "status", t."model", t."params", t."progress", t."deadlineAt",
            (t."cancelRequestedAt" IS NOT NULL) AS "cancelRequested", t."errorCode",
            a."id" AS "aId", a."attemptNo" AS "aNo", a."channelId" AS "aChannel", a."upstreamId" AS "aUpstream",
            a."status" AS "aStatus", a."createdAt" AS "aCreated", a."submitSentAt" AS "aSent"
       FROM "Task" t
       LEFT JOIN LATERAL (
         SELECT * FROM "TaskAttempt" x WHERE x."taskId" = t."id" ORDER BY x."attemptNo" DESC LIMIT 1
       ) a ON true
      WHERE t."id" = $1`,
    [taskId],
  );
  const r = rows[0];
  if (!r) return null;
  const attempt: Attempt | null = r.aId
    ? { id: r.aId, taskId: r.id, attemptNo: r.aNo, channelId: r.aChannel, upstreamId: r.aUpstream, status: r.aStatus, createdAt: r.aCreated, submitSentAt: r.aSent }
    : null;
  return {
    id: r.id, accountId: r.accountId, status: r.status, model: r.model, params: r.params, progress: r.progress, deadlineAt: r.deadlineAt,
    cancelRequested: r.cancelRequested, errorCode: r.errorCode, attempt,
  };
}

export async function latestAttempt(db: Db, taskId: string): Promise<Attempt | null> {
  return (await loadTask(db, taskId))?.attempt ?? null;
}

/** Channels the task has had an attempt on: each is tried at most once per task. */
export async function triedChannels(db: Db, taskId: string): Promise<Set<string>> {
  const rows = await db.$queryRaw<{ channelId: string }[]>`SELECT DISTINCT "channelId" FROM "TaskAttempt" WHERE "taskId" = ${taskId}`;
  return new Set(rows.map((r) => r.channelId));
}

/** Creates attempt `attemptNo`, or returns the one a racing worker created first. */
export async function startAttempt(db: Db, id: string, taskId: string, attemptNo: number, channelId: string): Promise<Attempt> {
  const cols = `"id", "taskId", "attemptNo", "channelId", "upstreamId", "status", "createdAt", "submitSentAt"`;
  // One round trip when the row is new (the usual case); the racing worker's row otherwise.
  const inserted = await sql<Attempt>(
    db,
    `INSERT INTO "TaskAttempt" ("id", "taskId", "attemptNo", "channelId", "status")
     VALUES ($1, $2, $3, $4, 'submitting')
     ON CONFLICT ("taskId", "attemptNo") DO NOTHING
     RETURNING ${cols}`,
    [id, taskId, attemptNo, channelId],
  );
  if (inserted.rows[0]) return inserted.rows[0];
  const { rows } = await sql<Attempt>(db, `SELECT ${cols} FROM "TaskAttempt" WHERE "taskId" = $1 AND "attemptNo" = $2`, [taskId, attemptNo]);
  return rows[0];
}

export async function recordUpstreamId(db: Db, attempt: Attempt, upstreamId: string): Promise<Attempt> {
  await db.$executeRaw`UPDATE "TaskAttempt" SET "upstreamId" = ${upstreamId}, "status" = 'running' WHERE "id" = ${attempt.id}`;
  return { ...attempt, upstreamId, status: 'running' };
}

export async function setAttemptStatus(db: Db, attempt: Attempt, status: AttemptStatus): Promise<Attempt> {
  await db.$executeRaw`UPDATE "TaskAttempt" SET "status" = ${status} WHERE "id" = ${attempt.id}`;
  return { ...attempt, status };
}

export async function finishAttempt(db: Db, attempt: Attempt, status: AttemptStatus, errorKind?: string, errorMessage?: string): Promise<Attempt> {
  await db.$executeRaw`
    UPDATE "TaskAttempt"
       SET "status" = ${status}, "errorKind" = ${errorKind ?? null}, "errorMessage" = ${errorMessage?.slice(0, 500) ?? null}, "finishedAt" = now()
     WHERE "id" = ${attempt.id}`;
  return { ...attempt, status };
}

/**
 * Closes an attempt that is still open ('submitting', 'running', 'succeeded') as abandoned, once:
 * of the steps that end a task otherwise at the same moment (the timeout sweep, the job's deadline
 * step, a job that finds its task failed elsewhere), only the one whose update changed the row gets
 * it back, with the upstream id as it stands now, so exactly one of them cancels the render upstream.
 * Null when the attempt was already closed.
 */
export async function abandonOpenAttempt(db: Db, attempt: Attempt): Promise<Attempt | null> {
  const rows = await db.$queryRaw<{ upstreamId: string | null }[]>`
    UPDATE "TaskAttempt" SET "status" = 'abandoned', "errorKind" = NULL, "errorMessage" = NULL, "finishedAt" = now()
     WHERE "id" = ${attempt.id} AND "status" IN ('submitting', 'running', 'succeeded')
     RETURNING "upstreamId"`;
  return rows.length ? { ...attempt, upstreamId: rows[0].upstreamId, status: 'abandoned' } : null;
}

/**
 * Written just before the first submit request leaves (channels without idempotent submits): from
 * here the upstream may hold a render this attempt has no id for yet.
 */
export async function markSubmitSent(db: Db, attempt: Attempt): Promise<Attempt> {
  if (attempt.submitSentAt) return attempt;
  const { rows } = await sql<{ submitSentAt: Date }>(
    db,
    `UPDATE "TaskAttempt" SET "submitSentAt" = COALESCE("submitSentAt", now()) WHERE "id" = $1 RETURNING "submitSentAt"`,
    [attempt.id],
  );
  return { ...attempt, submitSentAt: rows[0]?.submitSentAt ?? new Date() };
}

/** What the upstream reported the render used, and its cost to us when known (issue 13 point 12). */
export async function recordUsage(db: Db, attempt: Attempt, usage: { units: string; amount: number; costMicroUsd?: number }): Promise<void> {
  const cost = usage.costMicroUsd === undefined ? null : BigInt(Math.round(usage.costMicroUsd));
  await db.$executeRaw`
    UPDATE "TaskAttempt" SET "usageUnits" = ${usage.units}, "usageAmount" = ${usage.amount}, "upstreamCostMicros" = ${cost}
     WHERE "id" = ${attempt.id}`;
}

/**
 * A synchronous upstream answered the submit with the finished render: its id, what it used and
 * `succeeded`, in one write (recordUpstreamId + recordUsage + setAttemptStatus). A resumed job
 * finds the attempt as it would after those three.
 */
export async function recordSucceeded(db: Db, attempt: Attempt, upstreamId: string, usage?: { units: string; amount: number; costMicroUsd?: number }): Promise<Attempt> {
  const cost = usage?.costMicroUsd === undefined ? null : String(Math.round(usage.costMicroUsd));
  await sql(
    db,
    `UPDATE "TaskAttempt" SET "upstreamId" = $2, "status" = 'succeeded',
            "usageUnits" = COALESCE($3, "usageUnits"), "usageAmount" = COALESCE($4, "usageAmount"), "upstreamCostMicros" = COALESCE($5::bigint, "upstreamCostMicros")
      WHERE "id" = $1`,
    [attempt.id, upstreamId, usage?.units ?? null, usage?.amount ?? null, cost],
  );
  return { ...attempt, upstreamId, status: 'succeeded' };
}

/** How many of the task's attempts on this channel ended `lost` (a lost render gets one fresh attempt). */
export async function lostAttemptsOn(db: Db, taskId: string, channelId: string): Promise<number> {
  const rows = await db.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS "n" FROM "TaskAttempt" WHERE "taskId" = ${taskId} AND "channelId" = ${channelId} AND "status" = 'lost'`;
  return rows[0]?.n ?? 0;
}

/** The task an upstream render belongs to (verified upstream callbacks name only their render). */
export async function taskOfUpstreamRender(db: Db, channelId: string, upstreamId: string): Promise<string | null> {
  const rows = await db.$queryRaw<{ taskId: string }[]>`
    SELECT "taskId" FROM "TaskAttempt" WHERE "channelId" = ${channelId} AND "upstreamId" = ${upstreamId} ORDER BY "attemptNo" DESC LIMIT 1`;
  return rows[0]?.taskId ?? null;
}
