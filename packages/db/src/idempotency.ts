// Idempotency records (design.md section 2). A submit claims its key BEFORE the slow part of the
// request (media inspection, the billing transaction): a concurrent repeat then finds a record
// without a task and gets 409, and the claim is released if the submit creates no task, so the
// client can retry with the same id (e.g. after a top-up).
import type { Db } from './client';
import { sql } from './sql';

/** A claim older than this with no task belongs to a request that died; it may be taken over. */
export const IDEMPOTENCY_STALE_MS = 60_000;

export type ClaimResult =
  | { claimed: true }
  | { claimed: false; fingerprint: string; taskId: string | null };

export async function claimIdempotencyKey(db: Db, accountId: string, key: string, fingerprint: string): Promise<ClaimResult> {
  for (let attempt = 0; attempt < 2; attempt++) {
    // The common case, a new key, is one plain-SQL round trip; the rarer conflict path uses Prisma.
    const { rowCount } = await sql(
      db,
      `INSERT INTO "IdempotencyRecord" ("accountId", "key", "fingerprint", "createdAt")
       VALUES ($1, $2, $3, now())
       ON CONFLICT ("accountId", "key") DO NOTHING`,
      [accountId, key, fingerprint],
    );
    if (rowCount === 1) return { claimed: true };
    const rec = await db.idempotencyRecord.findUnique({ where: { accountId_key: { accountId, key } } });
    if (!rec) continue; // released between our insert and read: try once more
    if (rec.taskId === null && Date.now() - rec.createdAt.getTime() > IDEMPOTENCY_STALE_MS) {
      await db.idempotencyRecord.deleteMany({ where: { accountId, key, taskId: null, createdAt: rec.createdAt } });
      continue;
    }
    return { claimed: false, fingerprint: rec.fingerprint, taskId: rec.taskId };
  }
  // Lost two races in a row: report it as still in progress; the client retries shortly.
  return { claimed: false, fingerprint: '', taskId: null };
}

/** Gives the key back when the submit that claimed it created no task. */
export async function releaseIdempotencyKey(db: Db, accountId: string, key: string): Promise<void> {
  await sql(db, 'DELETE FROM "IdempotencyRecord" WHERE "accountId" = $1 AND "key" = $2 AND "taskId" IS NULL', [accountId, key]);
}
