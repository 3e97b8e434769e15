// Idempotency records. A submit claims its key BEFORE the slow part of the
// request (media inspection, the billing transaction): a concurrent repeat then finds a record
// without a task and gets 409, and the claim is released if the submit creates no task, so the
// client can retry with the same id (e.g. after a top-up).
//
// Every claim carries a random token. A claim with no task that is older than IDEMPOTENCY_STALE_MS
// (measured with the database's clock, never this process's) belongs to a request presumed dead
// and may be taken over; the takeover writes a new token, and the charge statement links the task
// and the release deletes the record only while the record still carries the caller's token. A
// slow first request that wakes up after a takeover therefore creates nothing (ClaimLost) and
// deletes nothing: one id, one task, one charge.
import { randomUUID } from 'node:crypto';
import type { Db } from './client';
import { sql } from './sql';

/** A claim older than this with no task belongs to a request that died; it may be taken over. */
export const IDEMPOTENCY_STALE_MS = 60_000;

export type ClaimResult =
  | { claimed: true; token: string }
  | { claimed: false; fingerprint: string; taskId: string | null };

/**
 * Takes the key (new, or a stale claim) in one statement. An existing record that is not stale
 * is left untouched, and the caller reads it.
 */
const CLAIM = `
INSERT INTO "IdempotencyRecord" AS r ("accountId", "key", "fingerprint", "claimToken", "createdAt")
VALUES ($1, $2, $3, $4, now())
ON CONFLICT ("accountId", "key") DO UPDATE
   SET "fingerprint" = EXCLUDED."fingerprint", "claimToken" = EXCLUDED."claimToken", "createdAt" = now()
 WHERE r."taskId" IS NULL AND r."createdAt" < now() - make_interval(secs => $5::double precision / 1000)
RETURNING 1`;

export async function claimIdempotencyKey(
  db: Db,
  accountId: string,
  key: string,
  fingerprint: string,
  staleMs: number = IDEMPOTENCY_STALE_MS,
): Promise<ClaimResult> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const token = randomUUID();
    const { rowCount } = await sql(db, CLAIM, [accountId, key, fingerprint, token, staleMs]);
    if (rowCount === 1) return { claimed: true, token };
    const { rows } = await sql<{ fingerprint: string; taskId: string | null }>(
      db,
      'SELECT "fingerprint", "taskId" FROM "IdempotencyRecord" WHERE "accountId" = $1 AND "key" = $2',
      [accountId, key],
    );
    if (rows.length === 0) continue; // released between our insert and read: try once more
    return { claimed: false, fingerprint: rows[0].fingerprint, taskId: rows[0].taskId };
  }
  // Lost two races in a row: report it as still in progress; the client retries shortly.
  return { claimed: false, fingerprint: '', taskId: null };
}

/** Gives the key back when the submit that claimed it created no task, if the claim is still ours. */
export async function releaseIdempotencyKey(db: Db, accountId: string, key: string, token: string): Promise<boolean> {
  const { rowCount } = await sql(
    db,
    'DELETE FROM "IdempotencyRecord" WHERE "accountId" = $1 AND "key" = $2 AND "taskId" IS NULL AND "claimToken" = $3',
    [accountId, key, token],
  );
  return rowCount === 1;
}
