// Webhook deliveries: one row per (task, endpoint, target, event), its attempts, and the reads
// admins and account holders page through. Invariants:
// - Every fact of a delivery lives in its row, so a job that runs twice or late reads the row and
//   does the right thing: an attempt number is claimed (compare-and-set on attemptCount) before the
//   request goes out, and two runs never record the same attempt.
// - An outcome is written only to the round it was claimed in (`roundAttempts` matches): a re-send
//   during an attempt starts a new round, and the writes answer false so the caller sends again.
// - Listings are keyset-paged newest first on (createdAt, id) (keyset.ts).
import type { Db } from './client';
import { newId } from './ids';
import { isoOf, Keyset, keysetWhere, pageOf } from './keyset';
import { sql } from './sql';

/** A pending delivery with what one attempt needs: its endpoint's secrets and whether it was deleted. */
export interface PendingDelivery {
  id: string;
  accountId: string;
  url: string;
  body: string;
  target: string;
  attemptCount: number;
  roundAttempts: number;
  nextAttemptAt: Date | null;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  endpointDeleted: boolean;
}

/** The delivery when it is still pending; null when it is unknown, delivered or given up. */
export async function findPendingDelivery(db: Db, id: string): Promise<PendingDelivery | null> {
  const { rows } = await sql<PendingDelivery>(
    db,
    `SELECT d."id", d."accountId", d."url", d."body", d."target", d."attemptCount", d."roundAttempts", d."nextAttemptAt",
            e."secret", e."previousSecret", e."previousSecretExpiresAt", (e."deletedAt" IS NOT NULL) AS "endpointDeleted"
       FROM "WebhookDelivery" d JOIN "WebhookEndpoint" e ON e."id" = d."endpointId"
      WHERE d."id" = $1 AND d."status" = 'pending'`,
    [id],
  );
  return rows[0] ?? null;
}

/** Gives a pending delivery up because its endpoint was deleted. */
export async function failDeliveryOfDeletedEndpoint(db: Db, id: string): Promise<void> {
  await sql(db, `UPDATE "WebhookDelivery" SET "status" = 'failed', "lastError" = 'endpoint deleted', "nextAttemptAt" = NULL WHERE "id" = $1 AND "status" = 'pending'`, [id]);
}

/** The attempt claimed: its number overall and within the current round. */
export interface ClaimedAttempt {
  attemptCount: number;
  roundAttempts: number;
}

/** Claims the next attempt of a pending delivery last seen at `seenAttemptCount`; null when another run took it. */
export async function claimDeliveryAttempt(db: Db, id: string, seenAttemptCount: number): Promise<ClaimedAttempt | null> {
  const { rows, rowCount } = await sql<ClaimedAttempt>(
    db,
    `UPDATE "WebhookDelivery" SET "attemptCount" = "attemptCount" + 1, "roundAttempts" = "roundAttempts" + 1
      WHERE "id" = $1 AND "status" = 'pending' AND "attemptCount" = $2 RETURNING "attemptCount", "roundAttempts"`,
    [id, seenAttemptCount],
  );
  return rowCount === 1 ? rows[0] : null;
}

export interface DeliveryAttemptRecord {
  deliveryId: string;
  attemptNo: number;
  /** The answer's HTTP status; null when none came (or the request was not sent). */
  statusCode: number | null;
  /** Why it failed (kept to its first 500 characters); null on success. */
  error: string | null;
  durationMs: number;
}

export async function recordDeliveryAttempt(db: Db, a: DeliveryAttemptRecord): Promise<void> {
  await sql(db, `INSERT INTO "WebhookDeliveryAttempt" ("id", "deliveryId", "attemptNo", "statusCode", "error", "durationMs") VALUES ($1, $2, $3, $4, $5, $6)`, [
    newId('wha'),
    a.deliveryId,
    a.attemptNo,
    a.statusCode,
    a.error?.slice(0, 500) ?? null,
    a.durationMs,
  ]);
}

/** Marks the delivery delivered; false when a re-send started a new round meanwhile. */
export async function markDeliveryDelivered(db: Db, id: string, roundAttempts: number): Promise<boolean> {
  const { rowCount } = await sql(
    db,
    `UPDATE "WebhookDelivery" SET "status" = 'delivered', "deliveredAt" = now(), "nextAttemptAt" = NULL, "lastError" = NULL WHERE "id" = $1 AND "roundAttempts" = $2`,
    [id, roundAttempts],
  );
  return rowCount === 1;
}

/** Gives the delivery up with its last error; false when a re-send started a new round meanwhile. */
export async function markDeliveryFailed(db: Db, id: string, roundAttempts: number, lastError: string | null): Promise<boolean> {
  const { rowCount } = await sql(db, `UPDATE "WebhookDelivery" SET "status" = 'failed', "nextAttemptAt" = NULL, "lastError" = $2 WHERE "id" = $1 AND "roundAttempts" = $3`, [
    id,
    lastError,
    roundAttempts,
  ]);
  return rowCount === 1;
}

/** Sets the next attempt's time and the last error; false when a re-send started a new round meanwhile. */
export async function scheduleDeliveryRetry(db: Db, id: string, roundAttempts: number, at: Date, lastError: string | null): Promise<boolean> {
  const { rowCount } = await sql(db, `UPDATE "WebhookDelivery" SET "nextAttemptAt" = $2::timestamptz, "lastError" = $3 WHERE "id" = $1 AND "roundAttempts" = $4`, [
    id,
    at.toISOString(),
    lastError,
    roundAttempts,
  ]);
  return rowCount === 1;
}

/**
 * Admin re-send: the same event (same webhook-id and body) goes out again with a fresh retry
 * schedule, whether it was delivered, failed or is still pending. False for an unknown id.
 */
export async function resetDeliveryForResend(db: Db, id: string): Promise<boolean> {
  const { rowCount } = await sql(
    db,
    `UPDATE "WebhookDelivery" SET "status" = 'pending', "roundAttempts" = 0, "nextAttemptAt" = now(), "deliveredAt" = NULL WHERE "id" = $1`,
    [id],
  );
  return rowCount === 1;
}

/** Pending deliveries whose attempt is overdue by more than `graceMs` (their job may be lost), most overdue first. */
export async function overdueDeliveries(db: Db, graceMs: number, limit = 500): Promise<string[]> {
  const { rows } = await sql<{ id: string }>(
    db,
    `SELECT "id" FROM "WebhookDelivery"
      WHERE "status" = 'pending' AND "nextAttemptAt" < now() - make_interval(secs => $1::double precision / 1000)
      ORDER BY "nextAttemptAt" LIMIT $2`,
    [graceMs, limit],
  );
  return rows.map((r) => r.id);
}

export interface DeliveryView {
  id: string;
  endpointId: string;
  taskId: string;
  target: string;
  url: string;
  eventType: string;
  status: string;
  attemptCount: number;
  nextAttemptAt: Date | null;
  lastError: string | null;
  /** Exact millisecond ISO text (UTC): the page cursor's key. */
  createdAt: string;
  deliveredAt: Date | null;
}

const DELIVERY_COLUMNS = `"id", "endpointId", "taskId", "target", "url", "eventType", "status", "attemptCount", "nextAttemptAt", "lastError",
  ${isoOf('"createdAt"')} AS "createdAt", "deliveredAt"`;

/** One page of an endpoint's deliveries, newest first, optionally of one status. */
export async function listDeliveries(
  db: Db,
  endpointId: string,
  f: { status?: string; limit: number; before?: Keyset },
): Promise<{ rows: DeliveryView[]; next: Keyset | null }> {
  const where = ['"endpointId" = $1'];
  const values: unknown[] = [endpointId];
  if (f.status) {
    values.push(f.status);
    where.push(`"status" = $${values.length}`);
  }
  keysetWhere(where, values, f.before);
  values.push(f.limit + 1);
  const { rows } = await sql<DeliveryView>(
    db,
    `SELECT ${DELIVERY_COLUMNS} FROM "WebhookDelivery" WHERE ${where.join(' AND ')} ORDER BY "createdAt" DESC, "id" DESC LIMIT $${values.length}`,
    values,
  );
  return pageOf(rows, f.limit);
}

export interface DeliveryAttemptView {
  attemptNo: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  createdAt: Date;
}

/** One delivery with its body (parsed) and every attempt, oldest first; null for an unknown id. */
export async function getDelivery(db: Db, id: string): Promise<(DeliveryView & { body: unknown; attempts: DeliveryAttemptView[] }) | null> {
  const d = (await sql<DeliveryView & { body: string }>(db, `SELECT ${DELIVERY_COLUMNS}, "body" FROM "WebhookDelivery" WHERE "id" = $1`, [id])).rows[0];
  if (!d) return null;
  const attempts = (
    await sql<DeliveryAttemptView>(
      db,
      `SELECT "attemptNo", "statusCode", "error", "durationMs", "createdAt" FROM "WebhookDeliveryAttempt" WHERE "deliveryId" = $1 ORDER BY "attemptNo"`,
      [id],
    )
  ).rows;
  return { ...d, body: JSON.parse(d.body) as unknown, attempts };
}
