// One run of a delivery job: claim an attempt, POST, record the attempt, and say when to come back.
// The job waits between attempts in BullMQ's delayed set (the caller moves it there), so a receiver
// that is down for hours holds no worker slot. Every fact lives in the WebhookDelivery row; a job
// that runs twice or late reads the row and does the right thing. The outcome is written only to the
// round it was claimed in: an admin re-send during the attempt starts a new round, which is sent.
// Fairness (fairness.ts): an attempt runs only with a slot of its account and of its destination;
// a destination in backoff gets no request (the attempt is recorded as not sent and counts against
// the delivery's retry schedule, so a delivery still gives up after about a day); a URL the
// address policy refuses fails the delivery at once, since no retry can change that.
import {
  claimDeliveryAttempt,
  failDeliveryOfDeletedEndpoint,
  findPendingDelivery,
  markDeliveryDelivered,
  markDeliveryFailed,
  recordDeliveryAttempt,
  scheduleDeliveryRetry,
  type Db,
} from '@mediagen/db';
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

export async function deliverOnce(db: Db, deliveryId: string, opts: DeliverOptions, now = Date.now()): Promise<DeliverOutcome> {
  const d = await findPendingDelivery(db, deliveryId);
  if (!d) return { kind: 'done', status: 'skipped' };
  // A job revived early (reconciler, resend race) waits for the attempt time the row holds.
  if (d.nextAttemptAt && d.nextAttemptAt.getTime() > now + 1_000) return { kind: 'retry', at: d.nextAttemptAt.getTime() };
  if (d.target === 'endpoint' && d.endpointDeleted) {
    await failDeliveryOfDeletedEndpoint(db, d.id);
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
    const claimed = await claimDeliveryAttempt(db, d.id, d.attemptCount);
    if (!claimed) return { kind: 'done', status: 'skipped' };
    const { attemptCount, roundAttempts } = claimed;
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
    await recordDeliveryAttempt(db, { deliveryId: d.id, attemptNo: attemptCount, statusCode: result.statusCode, error: result.error, durationMs: result.durationMs });
    if (result.ok) {
      const marked = await markDeliveryDelivered(db, d.id, roundAttempts);
      await opts.gate?.outcome(d, true, Date.now()).catch(() => undefined); // a lost reset only prolongs a streak
      // An admin re-sent it while this attempt was in flight (its job could not be queued twice): send again now.
      if (!marked) return { kind: 'retry', at: Date.now() };
      return { kind: 'done', status: 'delivered' };
    }
    const delay = result.refused ? null : nextRetryDelayMs(roundAttempts, opts.schedule);
    if (delay === null) {
      const gaveUp = await markDeliveryFailed(db, d.id, roundAttempts, result.error);
      if (!gaveUp) return { kind: 'retry', at: Date.now() }; // re-sent meanwhile
      return { kind: 'done', status: 'failed' };
    }
    const next = Math.max(now + delay, notBefore);
    const later = await scheduleDeliveryRetry(db, d.id, roundAttempts, new Date(next), result.error);
    if (!later) return { kind: 'retry', at: Date.now() }; // re-sent meanwhile: its fresh schedule starts now
    return { kind: 'retry', at: next };
  } finally {
    if (entry?.ok) await entry.leave().catch(() => undefined); // a lapsed lease frees it anyway
  }
}
