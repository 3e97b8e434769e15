// Idempotency-Key for admin writes (admin API and console forms): the first request with a key
// claims it, a repeat with the same request gets the stored answer, a repeat while the first is
// still running gets 'busy', and the same key with another request gets 'mismatch'.
import type { Db } from './client';
import { sql } from './sql';

export type AdminClaim =
  | { state: 'claimed' }
  | { state: 'replay'; statusCode: number; body: string }
  | { state: 'busy' }
  | { state: 'mismatch' };

export async function claimAdminIdempotencyKey(db: Db, key: string, fingerprint: string): Promise<AdminClaim> {
  const ins = await sql(db, 'INSERT INTO "AdminIdempotencyRecord" ("key", "fingerprint") VALUES ($1, $2) ON CONFLICT ("key") DO NOTHING', [key, fingerprint]);
  if (ins.rowCount === 1) return { state: 'claimed' };
  const { rows } = await sql<{ fingerprint: string; statusCode: number | null; body: string | null }>(
    db,
    'SELECT "fingerprint", "statusCode", "body" FROM "AdminIdempotencyRecord" WHERE "key" = $1',
    [key],
  );
  if (rows.length === 0) return claimAdminIdempotencyKey(db, key, fingerprint); // released meanwhile
  if (rows[0].fingerprint !== fingerprint) return { state: 'mismatch' };
  if (rows[0].statusCode === null) return { state: 'busy' };
  return { state: 'replay', statusCode: rows[0].statusCode, body: rows[0].body ?? '' };
}

/** Stores the answer of a successful write; a failed one releases the key so a retry runs again. */
export async function finishAdminIdempotencyKey(db: Db, key: string, statusCode: number, body: string): Promise<void> {
  if (statusCode >= 400) await sql(db, 'DELETE FROM "AdminIdempotencyRecord" WHERE "key" = $1 AND "statusCode" IS NULL', [key]);
  else await sql(db, 'UPDATE "AdminIdempotencyRecord" SET "statusCode" = $2, "body" = $3 WHERE "key" = $1', [key, statusCode, body]);
}
