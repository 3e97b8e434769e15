// Data retention (docs/data-retention.md): the queries of the retention job and of a retention
// change. Every statement touches at most `limit` rows found through an index, so none holds its
// locks for long and none scans a whole table; the job loops over them.
//
// Results: a completed task's files expire at Task.expiresAt (stamped at completion). The job
// finds expired results by the partial index Task_results_expiring_idx, deletes the files, then
// marks the task (resultsDeletedAt) in a statement that also counts the files on the day's
// StorageDay row: only a statement that wins the mark counts, so a run that crashed after deleting
// files and before marking simply deletes (no-op) and marks them on the next run, counted once.
import type { Db } from './client';
import { sql } from './sql';
import { SETTLED_TASK_SQL } from './statuses';

export interface ExpiredResult {
  id: string;
  resultUrls: string[];
}

/** Completed tasks whose results expired (by the database's clock) and are still stored, oldest expiry first. */
export async function expiredResults(db: Db, limit: number): Promise<ExpiredResult[]> {
  const { rows } = await sql<ExpiredResult>(
    db,
    `SELECT "id", "resultUrls" FROM "Task"
      WHERE "status" = 'completed' AND "resultsDeletedAt" IS NULL AND "expiresAt" IS NOT NULL AND "expiresAt" <= now()
      ORDER BY "expiresAt" LIMIT $1`,
    [limit],
  );
  return rows.map((r) => ({ id: r.id, resultUrls: r.resultUrls ?? [] }));
}

/**
 * Marks these tasks' results deleted (their files are gone) and counts them on today's StorageDay
 * row, in one statement. Only rows still unmarked and expired are marked: a concurrent run or a
 * re-run after a crash counts nothing twice. Answers what this call marked.
 */
export async function markResultsDeleted(db: Db, taskIds: string[]): Promise<{ tasks: number; files: number; bytes: number }> {
  if (taskIds.length === 0) return { tasks: 0, files: 0, bytes: 0 };
  const { rows } = await sql<{ tasks: string; files: string; bytes: string }>(
    db,
    `WITH marked AS (
       UPDATE "Task" SET "resultsDeletedAt" = now()
        WHERE "id" = ANY($1::text[]) AND "status" = 'completed' AND "resultsDeletedAt" IS NULL AND "expiresAt" <= now()
       RETURNING cardinality("resultUrls") AS files, COALESCE("resultBytes", 0) AS bytes
     ), total AS (
       SELECT count(*) AS tasks, COALESCE(sum(files), 0) AS files, COALESCE(sum(bytes), 0) AS bytes FROM marked
     ), counted AS (
       INSERT INTO "StorageDay" ("day", "filesDeleted", "bytesDeleted")
       SELECT (now() AT TIME ZONE 'UTC')::date, files, bytes FROM total WHERE tasks > 0
       ON CONFLICT ("day") DO UPDATE SET "filesDeleted" = "StorageDay"."filesDeleted" + EXCLUDED."filesDeleted",
                                         "bytesDeleted" = "StorageDay"."bytesDeleted" + EXCLUDED."bytesDeleted"
     )
     SELECT tasks, files, bytes FROM total`,
    [taskIds],
  );
  const r = rows[0];
  return { tasks: Number(r.tasks), files: Number(r.files), bytes: Number(r.bytes) };
}

/** Rows re-stamped per statement when a retention changes. */
const RESTAMP_BATCH = 5_000;

/**
 * Sets the account's result retention (null: the service default; 0: forever) and applies it to
 * its results not yet expired: expiresAt = finishedAt + the new retention (which may lie in the
 * past: a shortened retention expires them now). Expired results keep their expiry, so nothing the
 * retention job may already be deleting is given back. Re-stamps in batches by the account's task
 * index; idempotent, so an interrupted change is finished by sending it again.
 */
export async function setAccountResultRetention(db: Db, accountId: string, seconds: number | null, serviceDefault: number): Promise<number> {
  await sql(db, `UPDATE "Account" SET "resultRetentionSeconds" = $2 WHERE "id" = $1`, [accountId, seconds]);
  const effective = seconds ?? serviceDefault;
  let restamped = 0;
  let after: { createdAt: Date; id: string } | null = null;
  for (;;) {
    // Keyset over (accountId, status, createdAt DESC, id DESC): each batch is one index range.
    const page: { rows: { createdAt: Date; id: string; changed: boolean }[] } = await sql(
      db,
      `WITH page AS (
         SELECT "id", "createdAt" FROM "Task"
          WHERE "accountId" = $1 AND "status" = 'completed'
            ${after ? `AND ("createdAt", "id") < ($4::timestamptz, $5::text)` : ''}
          ORDER BY "createdAt" DESC, "id" DESC LIMIT $3
       ), stamped AS (
         UPDATE "Task" t
            SET "expiresAt" = CASE WHEN $2::int > 0 THEN t."finishedAt" + make_interval(secs => $2::int) END
          WHERE t."id" = ANY(ARRAY(SELECT "id" FROM page)) AND t."resultsDeletedAt" IS NULL AND (t."expiresAt" IS NULL OR t."expiresAt" > now())
            AND t."expiresAt" IS DISTINCT FROM CASE WHEN $2::int > 0 THEN t."finishedAt" + make_interval(secs => $2::int) END
         RETURNING t."id"
       )
       SELECT page."createdAt", page."id", EXISTS (SELECT 1 FROM stamped s WHERE s."id" = page."id") AS changed
         FROM page ORDER BY page."createdAt" DESC, page."id" DESC`,
      after ? [accountId, effective, RESTAMP_BATCH, after.createdAt.toISOString(), after.id] : [accountId, effective, RESTAMP_BATCH],
    );
    restamped += page.rows.filter((r) => r.changed).length;
    if (page.rows.length < RESTAMP_BATCH) return restamped;
    after = page.rows[page.rows.length - 1];
  }
}

/** The account's own result retention (null: the service default). */
export async function accountResultRetention(db: Db, accountId: string): Promise<number | null> {
  const { rows } = await sql<{ s: number | null }>(db, `SELECT "resultRetentionSeconds" AS s FROM "Account" WHERE "id" = $1`, [accountId]);
  return rows[0]?.s ?? null;
}

export interface StorageDayRow {
  /** YYYY-MM-DD (UTC). */
  day: string;
  filesStored: number;
  bytesStored: number;
  filesDeleted: number;
  bytesDeleted: number;
}

/** Result files stored and deleted per UTC day, newest first, for the last `days` days. */
export async function storageDays(db: Db, days: number): Promise<StorageDayRow[]> {
  const { rows } = await sql<Record<keyof StorageDayRow, string>>(
    db,
    `SELECT to_char("day", 'YYYY-MM-DD') AS day, "filesStored", "bytesStored", "filesDeleted", "bytesDeleted"
       FROM "StorageDay" WHERE "day" > (now() AT TIME ZONE 'UTC')::date - $1::int ORDER BY "day" DESC`,
    [days],
  );
  return rows.map((r) => ({
    day: r.day,
    filesStored: Number(r.filesStored),
    bytesStored: Number(r.bytesStored),
    filesDeleted: Number(r.filesDeleted),
    bytesDeleted: Number(r.bytesDeleted),
  }));
}

// Operational tables. Each prune deletes at most `limit` rows older than `before`, oldest first,
// found through an index on the column it walks; it answers how many it deleted. The victims are
// handed to the DELETE as an array (`= ANY(ARRAY(subquery))`): with `IN (subquery)` the planner
// chose a hash join over a sequential scan of the whole table (measured: 93 ms for 1,000 of 200,000
// attempts, growing with the table; docs/data-retention.md), with the array it probes the key.

/** Attempts of tasks created before `before` (a task is settled long before: TASK_TIMEOUT_MS is hours). */
export async function deleteAttemptsBefore(db: Db, before: Date, limit: number): Promise<number> {
  const { rowCount } = await sql(
    db,
    `DELETE FROM "TaskAttempt" WHERE "id" = ANY(ARRAY(
       SELECT a."id" FROM "TaskAttempt" a JOIN "Task" t ON t."id" = a."taskId"
        WHERE a."createdAt" < $1 AND t."status" IN (${SETTLED_TASK_SQL})
        ORDER BY a."createdAt" LIMIT $2))`,
    [before.toISOString(), limit],
  );
  return rowCount;
}

/** Finished webhook deliveries (delivered or given up) created before `before`, with their attempts. */
export async function deleteWebhookDeliveriesBefore(db: Db, before: Date, limit: number): Promise<number> {
  const { rows } = await sql<{ n: string }>(
    db,
    `WITH doomed AS (
       SELECT "id" FROM "WebhookDelivery"
        WHERE "createdAt" < $1 AND "status" IN ('delivered', 'failed')
        ORDER BY "createdAt" LIMIT $2
     ), attempts AS (
       DELETE FROM "WebhookDeliveryAttempt" WHERE "deliveryId" = ANY(ARRAY(SELECT "id" FROM doomed))
     ), deliveries AS (
       DELETE FROM "WebhookDelivery" WHERE "id" = ANY(ARRAY(SELECT "id" FROM doomed)) RETURNING 1
     )
     SELECT count(*) AS n FROM deliveries`,
    [before.toISOString(), limit],
  );
  return Number(rows[0].n);
}

/**
 * Submit idempotency records created before `before`: a later submit with the same key creates a
 * new task (docs/data-retention.md). A claim still inside its request (taskId null) is minutes old
 * at most, never this old.
 */
export async function deleteIdempotencyRecordsBefore(db: Db, before: Date, limit: number): Promise<number> {
  const { rowCount } = await sql(
    db,
    `DELETE FROM "IdempotencyRecord" r USING (
       SELECT "accountId", "key" FROM "IdempotencyRecord" WHERE "createdAt" < $1 ORDER BY "createdAt" LIMIT $2) d
      WHERE r."accountId" = d."accountId" AND r."key" = d."key"`,
    [before.toISOString(), limit],
  );
  return rowCount;
}

/** Admin write idempotency records (admin API and console) created before `before`. */
export async function deleteAdminIdempotencyRecordsBefore(db: Db, before: Date, limit: number): Promise<number> {
  const { rowCount } = await sql(
    db,
    `DELETE FROM "AdminIdempotencyRecord" WHERE "key" = ANY(ARRAY(
       SELECT "key" FROM "AdminIdempotencyRecord" WHERE "createdAt" < $1 ORDER BY "createdAt" LIMIT $2))`,
    [before.toISOString(), limit],
  );
  return rowCount;
}
