// TaskAttempt rows: one per channel tried. The upstream id is written before the job moves on
// from a submit, so a resumed job polls that render instead of starting another one.
// Raw SQL on purpose: these run on every step of every task, and Prisma's query compiler costs
// more CPU than the queries themselves (measured: ~45% of a worker's CPU before the change). The
// ones on an answers-at-once submit's path (loadTask, startAttempt, markSubmitSent,
// recordUpstreamId) go straight to the pg pool (sql.ts): ~0.3 ms less per query than $queryRaw.
import { Prisma } from './generated/client';
import type { Db } from './client';
import { sql } from './sql';
import { OPEN_ATTEMPT_SQL, OPEN_TASK_SQL, type AttemptStatus } from './statuses';

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
  /** Until when the latest submit request may still be open (null: it ended, or none was sent). */
  submitOpenUntil?: Date | null;
  /** How much longer that is, by the database's clock (0: no submit can still be open). */
  submitOpenMs?: number;
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
  /** optimize_prompt: the prompt decided for every attempt (null: none decided, the params' prompt goes). */
  effectivePrompt: string | null;
  /** Null until the rewrite step decided (prompt-rewrite.ts). */
  promptOptimized: boolean | null;
  attempt: Attempt | null;
}

/** Milliseconds left until "submitOpenUntil" of the row aliased `a`, by the database's clock: no clock of ours is compared with it. */
const OPEN_MS_SQL = `GREATEST(0, CEIL(EXTRACT(EPOCH FROM (a."submitOpenUntil" - now())) * 1000))::int`;

/** The task and its latest attempt, in one round trip. */
export async function loadTask(db: Db, taskId: string): Promise<TaskWithAttempt | null> {
  const { rows } = await sql<
    Omit<TaskWithAttempt, 'attempt'> & {
      aId: string | null; aNo: number; aChannel: string; aUpstream: string | null; aStatus: AttemptStatus; aCreated: Date; aSent: Date | null;
      aOpenUntil: Date | null; aOpenMs: number;
    }
  >(
    db,
    `SELECT t."id", t."accountId", t."status"::text AS "status", t."model", t."params", t."progress", t."deadlineAt",
            (t."cancelRequestedAt" IS NOT NULL) AS "cancelRequested", t."errorCode",
            t."effectivePrompt", t."promptOptimized",
            a."id" AS "aId", a."attemptNo" AS "aNo", a."channelId" AS "aChannel", a."upstreamId" AS "aUpstream",
            a."status" AS "aStatus", a."createdAt" AS "aCreated", a."submitSentAt" AS "aSent",
            a."submitOpenUntil" AS "aOpenUntil", ${OPEN_MS_SQL} AS "aOpenMs"
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
    ? {
        id: r.aId, taskId: r.id, attemptNo: r.aNo, channelId: r.aChannel, upstreamId: r.aUpstream, status: r.aStatus, createdAt: r.aCreated,
        submitSentAt: r.aSent, submitOpenUntil: r.aOpenUntil, submitOpenMs: r.aOpenMs,
      }
    : null;
  return {
    id: r.id, accountId: r.accountId, status: r.status, model: r.model, params: r.params, progress: r.progress, deadlineAt: r.deadlineAt,
    cancelRequested: r.cancelRequested, errorCode: r.errorCode, effectivePrompt: r.effectivePrompt, promptOptimized: r.promptOptimized, attempt,
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
  // One round trip when the row is new (the usual case); the racing worker's row otherwise.
  const inserted = await sql<Attempt>(
    db,
    `INSERT INTO "TaskAttempt" ("id", "taskId", "attemptNo", "channelId", "status")
     VALUES ($1, $2, $3, $4, 'submitting')
     ON CONFLICT ("taskId", "attemptNo") DO NOTHING
     RETURNING "id", "taskId", "attemptNo", "channelId", "upstreamId", "status", "createdAt", "submitSentAt", "submitOpenUntil"`,
    [id, taskId, attemptNo, channelId],
  );
  if (inserted.rows[0]) return { ...inserted.rows[0], submitOpenMs: 0 };
  const { rows } = await sql<Attempt>(
    db,
    `SELECT a."id", a."taskId", a."attemptNo", a."channelId", a."upstreamId", a."status", a."createdAt", a."submitSentAt", a."submitOpenUntil",
            ${OPEN_MS_SQL} AS "submitOpenMs"
       FROM "TaskAttempt" a WHERE a."taskId" = $1 AND a."attemptNo" = $2`,
    [taskId, attemptNo],
  );
  return rows[0];
}

/** What the upstream reported a render used, and its cost to us when known. */
export interface RenderUsage {
  units: string;
  amount: number;
  costMicroUsd?: number;
}

/**
 * Writes the render's id on the attempt, a compare-and-set: only an attempt still `submitting`
 * without an id takes it. Two runs of one job can each hold an answer (a lock that lapsed during a
 * slow submit; a write retried after its commit's answer was lost): the first id written stays.
 * `recorded` is the attempt now running on this render (also when the row already named it);
 * `other` is how the row stands when it names another render or was closed meanwhile.
 * `finished`: a synchronous upstream answered with the finished render, so the same write makes the
 * attempt `succeeded` and records the usage (what recordUpstreamId, recordUsage and
 * setAttemptStatus would write one after the other).
 */
export async function recordUpstreamId(
  db: Db,
  attempt: Attempt,
  upstreamId: string,
  finished?: { usage?: RenderUsage },
): Promise<{ recorded: Attempt; won: boolean } | { other: { upstreamId: string | null; status: AttemptStatus } }> {
  const status: AttemptStatus = finished ? 'succeeded' : 'running';
  const usage = finished?.usage;
  const cost = usage?.costMicroUsd === undefined ? null : String(Math.round(usage.costMicroUsd));
  // The outer SELECT reads the row as it was before the UPDATE (one snapshot): when the update did
  // not apply, that is how it stands now.
  const { rows } = await sql<{ won: boolean; upstreamId: string | null; status: AttemptStatus }>(
    db,
    `WITH upd AS (
       UPDATE "TaskAttempt" SET "upstreamId" = $2, "status" = $3, "submitOpenUntil" = NULL,
              "usageUnits" = COALESCE($4, "usageUnits"), "usageAmount" = COALESCE($5::double precision, "usageAmount"),
              "upstreamCostMicros" = COALESCE($6::bigint, "upstreamCostMicros")
        WHERE "id" = $1 AND "status" = 'submitting' AND "upstreamId" IS NULL
       RETURNING 1
     )
     SELECT EXISTS (SELECT 1 FROM upd) AS "won", a."upstreamId", a."status" FROM "TaskAttempt" a WHERE a."id" = $1`,
    [attempt.id, upstreamId, status, usage?.units ?? null, usage?.amount ?? null, cost],
  );
  const row = rows[0];
  if (row?.won) return { recorded: { ...attempt, upstreamId, status, submitOpenUntil: null, submitOpenMs: 0 }, won: true };
  // Written already by another run of the same job (a stalled job handed over): the same render, kept.
  if (row && row.upstreamId === upstreamId && ACTIVE.has(row.status)) return { recorded: { ...attempt, upstreamId, status: row.status }, won: false };
  return { other: { upstreamId: row?.upstreamId ?? null, status: row?.status ?? 'abandoned' } };
}

const ACTIVE: ReadonlySet<AttemptStatus> = new Set(['running', 'succeeded']);

export async function setAttemptStatus(db: Db, attempt: Attempt, status: AttemptStatus): Promise<Attempt> {
  await sql(db, `UPDATE "TaskAttempt" SET "status" = $2 WHERE "id" = $1`, [attempt.id, status]);
  return { ...attempt, status };
}

/**
 * A polled render finished: `running` -> `succeeded` with its usage, in one write (what
 * recordUsage and setAttemptStatus would write one after the other). A compare-and-set: null when
 * the attempt is no longer running (closed meanwhile by the timeout sweep, a cancel or another
 * run), so a late success never reopens a closed attempt.
 */
export async function markAttemptSucceeded(db: Db, attempt: Attempt, usage?: RenderUsage): Promise<Attempt | null> {
  const cost = usage?.costMicroUsd === undefined ? null : String(Math.round(usage.costMicroUsd));
  const { rowCount } = await sql(
    db,
    `UPDATE "TaskAttempt" SET "status" = 'succeeded',
            "usageUnits" = COALESCE($2, "usageUnits"), "usageAmount" = COALESCE($3::double precision, "usageAmount"),
            "upstreamCostMicros" = COALESCE($4::bigint, "upstreamCostMicros")
      WHERE "id" = $1 AND "status" = 'running'`,
    [attempt.id, usage?.units ?? null, usage?.amount ?? null, cost],
  );
  return rowCount === 1 ? { ...attempt, status: 'succeeded' } : null;
}

export async function finishAttempt(db: Db, attempt: Attempt, status: AttemptStatus, errorKind?: string, errorMessage?: string): Promise<Attempt> {
  await sql(
    db,
    `UPDATE "TaskAttempt" SET "status" = $2, "errorKind" = $3, "errorMessage" = $4, "finishedAt" = now() WHERE "id" = $1`,
    [attempt.id, status, errorKind ?? null, errorMessage?.slice(0, 500) ?? null],
  );
  return { ...attempt, status };
}

/**
 * Closes an attempt that is still open (OPEN_ATTEMPT_STATUSES) as abandoned, once:
 * of the steps that end a task otherwise at the same moment (the timeout sweep, the job's deadline
 * step, a job that finds its task failed elsewhere), only the one whose update changed the row gets
 * it back, with the upstream id as it stands now, so exactly one of them cancels the render upstream.
 * Null when the attempt was already closed.
 */
export async function abandonOpenAttempt(db: Db, attempt: Attempt): Promise<Attempt | null> {
  const rows = await db.$queryRaw<{ upstreamId: string | null }[]>`
    UPDATE "TaskAttempt" SET "status" = 'abandoned', "errorKind" = NULL, "errorMessage" = NULL, "finishedAt" = now()
     WHERE "id" = ${attempt.id} AND "status" IN (${Prisma.raw(OPEN_ATTEMPT_SQL)})
     RETURNING "upstreamId"`;
  return rows.length ? { ...attempt, upstreamId: rows[0].upstreamId, status: 'abandoned' } : null;
}

/**
 * Written just before each submit request leaves: from here the upstream may hold a render this
 * attempt has no id for yet. `submitSentAt` keeps the first send (orphan searches look from there,
 * and a client's cancel treats the render as accepted from then on); `submitOpenUntil` is this
 * send's deadline, `openMs` from now by the database's clock: until then another run of the job
 * must not submit again.
 * Null, and nothing may be sent: the task has a cancel request or has settled. The task row is
 * share-locked while this is decided, so it is ordered with the cancel's mark (requestCancel): either
 * the send is marked first and the cancel sees it, or the cancel is and nothing is sent.
 */
export async function markSubmitSent(db: Db, attempt: Attempt, openMs: number): Promise<Attempt | null> {
  return (await markSent(db, MARK_SENT_SQL, attempt, openMs)).sent;
}

/**
 * markSubmitSent for a task still pending: the same statement also moves it pending -> processing
 * (markProcessing's compare-and-set, whether or not the send may go), one round trip and one commit
 * where the two writes were one each. Its row lock then orders the decision with the cancel's mark
 * instead of the share lock. `started`: this statement made the move.
 */
export async function markSubmitSentAndStart(db: Db, attempt: Attempt, openMs: number): Promise<{ sent: Attempt | null; started: boolean }> {
  return markSent(db, MARK_SENT_AND_START_SQL, attempt, openMs);
}

async function markSent(db: Db, text: string, attempt: Attempt, openMs: number): Promise<{ sent: Attempt | null; started: boolean }> {
  const { rows } = await sql<{ started: boolean; submitSentAt: Date | null; submitOpenUntil: Date | null }>(db, text, [attempt.id, openMs / 1000, attempt.taskId]);
  const r = rows[0];
  const started = r?.started === true;
  if (!r?.submitSentAt) return { sent: null, started };
  return { sent: { ...attempt, submitSentAt: r.submitSentAt, submitOpenUntil: r.submitOpenUntil, submitOpenMs: openMs }, started };
}

/** $1 attempt id, $2 seconds the send may stay open, $3 task id (both statements). */
const MARK_SENT_SET = `"submitSentAt" = COALESCE("submitSentAt", now()), "submitOpenUntil" = now() + make_interval(secs => $2::double precision)`;

const MARK_SENT_SQL = `
  WITH live AS (
    SELECT 1 FROM "Task" WHERE "id" = $3 AND "status" IN (${OPEN_TASK_SQL}) AND "cancelRequestedAt" IS NULL FOR SHARE
  )
  UPDATE "TaskAttempt" SET ${MARK_SENT_SET}
   WHERE "id" = $1 AND EXISTS (SELECT 1 FROM live) RETURNING false AS "started", "submitSentAt", "submitOpenUntil"`;

// `started` moves a pending task and, locking its row, says whether it is live (its RETURNING is
// the row as the update left it: a cancel committed first is seen). A task that was not pending is
// share-locked by `shared` as MARK_SENT_SQL does; `shared` does not read a row `started` updated
// (its NOT EXISTS): a statement that locks a row it has itself updated skips that row.
const MARK_SENT_AND_START_SQL = `
  WITH started AS (
    UPDATE "Task" SET "status" = 'processing', "startedAt" = now(), "updatedAt" = now()
     WHERE "id" = $3 AND "status" = 'pending'
    RETURNING ("cancelRequestedAt" IS NULL) AS "live"
  ), shared AS (
    SELECT 1 FROM "Task"
     WHERE "id" = $3 AND "status" IN (${OPEN_TASK_SQL}) AND "cancelRequestedAt" IS NULL AND NOT EXISTS (SELECT 1 FROM started)
    FOR SHARE
  ), sent AS (
    UPDATE "TaskAttempt" SET ${MARK_SENT_SET}
     WHERE "id" = $1 AND (EXISTS (SELECT 1 FROM started WHERE "live") OR EXISTS (SELECT 1 FROM shared))
    RETURNING "submitSentAt", "submitOpenUntil"
  )
  SELECT EXISTS (SELECT 1 FROM started) AS "started", s."submitSentAt", s."submitOpenUntil" FROM (SELECT 1) one LEFT JOIN sent s ON true`;

/**
 * The run that sent a submit saw it end without an id (an error, a timeout): nothing of it is
 * open any more, so a retry need not wait for its deadline. Only that send's deadline is cleared.
 */
export async function markSubmitEnded(db: Db, attempt: Attempt): Promise<void> {
  if (!attempt.submitOpenUntil) return;
  await db.$executeRaw`
    UPDATE "TaskAttempt" SET "submitOpenUntil" = NULL WHERE "id" = ${attempt.id} AND "submitOpenUntil" = ${attempt.submitOpenUntil}`;
}

/** What the upstream reported the render used, and its cost to us when known. */
export async function recordUsage(db: Db, attempt: Attempt, usage: { units: string; amount: number; costMicroUsd?: number }): Promise<void> {
  const cost = usage.costMicroUsd === undefined ? null : BigInt(Math.round(usage.costMicroUsd));
  await db.$executeRaw`
    UPDATE "TaskAttempt" SET "usageUnits" = ${usage.units}, "usageAmount" = ${usage.amount}, "upstreamCostMicros" = ${cost}
     WHERE "id" = ${attempt.id}`;
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
