// One run of a delivery job: claim an attempt, POST, record the attempt, and say when to come back.
// The job waits between attempts in BullMQ's delayed set (the caller moves it there), so a receiver
// that is down for hours holds no worker slot. Every fact lives in the WebhookDelivery row; a job
// that runs twice or late reads the row and does the right thing. The outcome is written only to the
// round it was claimed in: an admin re-send during the attempt starts a new round, which is sent.
// Fairness (fairness.ts): an attempt runs only with a slot of its account and of its destination;
// a destination in backoff gets no request (the attempt is recorded as not sent and counts against
// the delivery's retry schedule, so a delivery still gives up after about a day); a URL the
// address policy refuses fails the delivery at once, since no retry can change that.
import { newId, sql, type Db } from '@mediagen/db';
import { nextRetryDelayMs, RetrySchedule } from './schedule';
import { sendWebhook, SendPolicy, SendResult } from './send';
import type { DeliveryGate } from './fairness';
import { activeSecrets, signWebhook } from './signing';

export interface DeliverOptions {
  schedule: RetrySchedule;
  send: SendPolicy;
  /** Per-account and per-destination slots and destination backoff; none: every attempt runs. */
  gate?: DeliveryGate;
}

/** What the job does next: nothing (delivered, gave up, gone) or run again at `at`. */
export type DeliverOutcome =
  | { kind: 'done'; status: 'delivered' | 'failed' | 'skipped' }
  | { kind: 'retry'; at: number };

interface Claimed {
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

async function load(db: Db, id: string): Promise<Claimed | null> {
  const { rows } = await sql<Claimed>(
    db,
    `SELECT d."id", d."accountId", d."url", d."body", d."target", d."attemptCount", d."roundAttempts", d."nextAttemptAt",
            e."secret", e."previousSecret", e."previousSecretExpiresAt", (e."deletedAt" IS NOT NULL) AS "endpointDeleted"
       FROM "WebhookDelivery" d JOIN "WebhookEndpoint" e ON e."id" = d."endpointId"
      WHERE d."id" = $1 AND d."status" = 'pending'`,
    [id],
  );
  return rows[0] ?? null;
}

export async function deliverOnce(db: Db, deliveryId: string, opts: DeliverOptions, now = Date.now()): Promise<DeliverOutcome> {
  const d = await load(db, deliveryId);
  if (!d) return { kind: 'done', status: 'skipped' };
  // A job revived early (reconciler, resend race) waits for the attempt time the row holds.
  if (d.nextAttemptAt && d.nextAttemptAt.getTime() > now + 1_000) return { kind: 'retry', at: d.nextAttemptAt.getTime() };
  if (d.target === 'endpoint' && d.endpointDeleted) {
    await sql(db, `UPDATE "WebhookDelivery" SET "status" = 'failed', "lastError" = 'endpoint deleted', "nextAttemptAt" = NULL WHERE "id" = $1 AND "status" = 'pending'`, [d.id]);
    return { kind: 'done', status: 'failed' };
  }
  const backoffUntil = opts.gate ? await opts.gate.backoffUntil(d, now) : 0;
  let entry: Awaited<ReturnType<DeliveryGate['enter']>> | null = null;
  if (opts.gate && !backoffUntil) {
    entry = await opts.gate.enter(d, now);
    if (!entry.ok) return { kind: 'retry', at: entry.retryAt };
  }
  try {
    // Claim the attempt number first: two runs of the same delivery never record the same attempt.
    const claimed = await sql<{ attemptCount: number; roundAttempts: number }>(
      db,
      `UPDATE "WebhookDelivery" SET "attemptCount" = "attemptCount" + 1, "roundAttempts" = "roundAttempts" + 1
        WHERE "id" = $1 AND "status" = 'pending' AND "attemptCount" = $2 RETURNING "attemptCount", "roundAttempts"`,
      [d.id, d.attemptCount],
    );
    if (claimed.rowCount !== 1) return { kind: 'done', status: 'skipped' };
    const { attemptCount, roundAttempts } = claimed.rows[0];
    let result: SendResult;
    let notBefore = 0;
    if (backoffUntil) {
      result = { statusCode: null, ok: false, error: `not sent: the destination is backing off after repeated failures (until ${new Date(backoffUntil).toISOString()})`, durationMs: 0 };
      notBefore = backoffUntil;
    } else {
      const at = new Date(now);
      const headers = signWebhook(activeSecrets(d, at), d.id, at, d.body);
      result = await sendWebhook(d.url, d.body, { ...headers }, opts.send);
      // A refusal says nothing about the destination's health; only real attempts count. A success
      // is counted after its row is written (below), so that write follows the answer at once.
      if (opts.gate && !result.refused && !result.ok) notBefore = await opts.gate.outcome(d, false, Date.now());
    }
    await sql(
      db,
      `INSERT INTO "WebhookDeliveryAttempt" ("id", "deliveryId", "attemptNo", "statusCode", "error", "durationMs") VALUES ($1, $2, $3, $4, $5, $6)`,
      [newId('wha'), d.id, attemptCount, result.statusCode, result.error?.slice(0, 500) ?? null, result.durationMs],
    );
    if (result.ok) {
      const marked = await sql(
        db,
        `UPDATE "WebhookDelivery" SET "status" = 'delivered', "deliveredAt" = now(), "nextAttemptAt" = NULL, "lastError" = NULL WHERE "id" = $1 AND "roundAttempts" = $2`,
        [d.id, roundAttempts],
      );
      await opts.gate?.outcome(d, true, Date.now()).catch(() => undefined); // a lost reset only prolongs a streak
      // An admin re-sent it while this attempt was in flight (its job could not be queued twice): send again now.
      if (marked.rowCount === 0) return { kind: 'retry', at: Date.now() };
      return { kind: 'done', status: 'delivered' };
    }
    const delay = result.refused ? null : nextRetryDelayMs(roundAttempts, opts.schedule);
    if (delay === null) {
      const gaveUp = await sql(db, `UPDATE "WebhookDelivery" SET "status" = 'failed', "nextAttemptAt" = NULL, "lastError" = $2 WHERE "id" = $1 AND "roundAttempts" = $3`, [d.id, result.error, roundAttempts]);
      if (gaveUp.rowCount === 0) return { kind: 'retry', at: Date.now() }; // re-sent meanwhile
      return { kind: 'done', status: 'failed' };
    }
    const next = Math.max(now + delay, notBefore);
    const later = await sql(db, `UPDATE "WebhookDelivery" SET "nextAttemptAt" = $2::timestamptz, "lastError" = $3 WHERE "id" = $1 AND "roundAttempts" = $4`, [
      d.id,
      new Date(next).toISOString(),
      result.error,
      roundAttempts,
    ]);
    if (later.rowCount === 0) return { kind: 'retry', at: Date.now() }; // re-sent meanwhile: its fresh schedule starts now
    return { kind: 'retry', at: next };
  } finally {
    if (entry?.ok) await entry.leave().catch(() => undefined); // a lapsed lease frees it anyway
  }
}

/**
 * Admin resend: the same event (same webhook-id and body) goes out again with a fresh retry
 * schedule, whether it was delivered, failed or is still pending. Returns false for an unknown id.
 */
export async function resetForResend(db: Db, deliveryId: string): Promise<boolean> {
  const { rowCount } = await sql(
    db,
    `UPDATE "WebhookDelivery" SET "status" = 'pending', "roundAttempts" = 0, "nextAttemptAt" = now(), "deliveredAt" = NULL WHERE "id" = $1`,
    [deliveryId],
  );
  return rowCount === 1;
}
