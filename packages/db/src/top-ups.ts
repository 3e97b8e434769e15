// Card top-ups through Stripe Checkout. A TopUp row is made when the holder is sent to Checkout;
// the balance moves only from Stripe's signed events, each in one transaction with its ledger entry:
// - the event id is inserted into StripeEvent first, so a redelivered or replayed event acts once;
// - the session's TopUp moves pending -> credited by compare-and-set, so two events for one
//   session (checkout.session.completed and async_payment_succeeded, say) credit once;
// - refunds and disputes are negative ledger entries, capped at what was credited, and may take
//   the balance below zero (docs/account.md: a negative balance refuses new tasks until topped up).
import type { PoolClient } from 'pg';
import type { Db } from './client';
import { newId } from './ids';
import { isoOf, Keyset, pageOf } from './keyset';
import { sql, sqlTransaction } from './sql';
import { creditInTransaction } from './billing';
import { recordAuditIn } from './audit';

export async function createTopUp(db: Db, t: { accountId: string; sessionId: string; requestedCents: number; currency: string }): Promise<string> {
  const id = newId('top');
  await db.topUp.create({ data: { id, accountId: t.accountId, sessionId: t.sessionId, requestedCents: BigInt(t.requestedCents), currency: t.currency } });
  return id;
}

/** true when this event id is new (and now recorded in the caller's transaction). */
async function firstTime(c: PoolClient, eventId: string, type: string): Promise<boolean> {
  const r = await c.query('INSERT INTO "StripeEvent" ("id", "type") VALUES ($1, $2) ON CONFLICT ("id") DO NOTHING', [eventId, type]);
  return r.rowCount === 1;
}

export type CheckoutCreditOutcome =
  | { outcome: 'credited'; accountId: string; amountCents: number; balanceCents: number }
  | { outcome: 'duplicate_event' | 'already_credited' | 'unknown_session' | 'currency_mismatch' | 'above_maximum' };

/**
 * Credits a completed Checkout Session: the amount and currency are Stripe's (amount_total), the
 * account must be the one the session was made for (client_reference_id and our TopUp row agree).
 */
export async function creditCheckoutSession(
  db: Db,
  e: { eventId: string; eventType: string; sessionId: string; clientReferenceId: string | null; amountCents: number; currency: string; paymentRef: string | null },
): Promise<CheckoutCreditOutcome> {
  if (!Number.isSafeInteger(e.amountCents) || e.amountCents <= 0) throw new RangeError(`bad amount ${e.amountCents}`);
  return sqlTransaction(db, async (c) => {
    if (!(await firstTime(c, e.eventId, e.eventType))) return { outcome: 'duplicate_event' as const };
    const t = await c.query<{ id: string; accountId: string; status: string; currency: string }>(
      'SELECT "id", "accountId", "status", "currency" FROM "TopUp" WHERE "sessionId" = $1 FOR UPDATE',
      [e.sessionId],
    );
    const top = t.rows[0];
    if (!top || top.accountId !== e.clientReferenceId) return { outcome: 'unknown_session' as const };
    if (top.status === 'credited') return { outcome: 'already_credited' as const };
    if (top.currency.toLowerCase() !== e.currency.toLowerCase()) return { outcome: 'currency_mismatch' as const };
    const credit = await creditInTransaction(c, top.accountId, e.amountCents, `Stripe top-up ${e.paymentRef ?? e.sessionId}`, 'stripe');
    if ('refused' in credit) return { outcome: 'above_maximum' as const };
    await c.query(
      `UPDATE "TopUp" SET "status" = 'credited', "creditedCents" = $2, "paymentRef" = $3, "creditedAt" = now() WHERE "id" = $1`,
      [top.id, e.amountCents, e.paymentRef],
    );
    await recordAuditIn(c, {
      actor: { type: 'system', name: 'stripe' }, action: 'topup.credit', targetType: 'top_up', targetId: top.id, accountId: top.accountId,
      after: { amountCents: e.amountCents, currency: e.currency, sessionId: e.sessionId, paymentRef: e.paymentRef, eventId: e.eventId },
    });
    return { outcome: 'credited' as const, accountId: top.accountId, amountCents: e.amountCents, balanceCents: credit.balanceCents };
  });
}

export type ReversalOutcome =
  | { outcome: 'reversed'; accountId: string; amountCents: number; balanceCents: number }
  | { outcome: 'duplicate_event' | 'unknown_payment' | 'nothing_to_reverse' };

/**
 * A refund (`totalCents`: the charge's cumulative amount_refunded) or a dispute (the disputed
 * amount) of a credited top-up, found by its payment reference: the part not yet reversed becomes a
 * negative ledger entry. Refunds and disputes together never reverse more than was credited.
 */
export async function reverseTopUp(
  db: Db,
  e: { eventId: string; eventType: string; paymentRef: string; kind: 'refund' | 'dispute'; totalCents: number },
): Promise<ReversalOutcome> {
  return sqlTransaction(db, async (c) => {
    if (!(await firstTime(c, e.eventId, e.eventType))) return { outcome: 'duplicate_event' as const };
    const t = await c.query<{ id: string; accountId: string; creditedCents: string; refundedCents: string; disputedCents: string }>(
      `SELECT "id", "accountId", "creditedCents", "refundedCents", "disputedCents" FROM "TopUp"
        WHERE "paymentRef" = $1 AND "status" = 'credited' ORDER BY "createdAt" LIMIT 1 FOR UPDATE`,
      [e.paymentRef],
    );
    const top = t.rows[0];
    if (!top) return { outcome: 'unknown_payment' as const };
    const credited = Number(top.creditedCents);
    const refunded = Number(top.refundedCents);
    const disputed = Number(top.disputedCents);
    const done = e.kind === 'refund' ? refunded : disputed;
    const other = e.kind === 'refund' ? disputed : refunded;
    const target = Math.min(Math.max(0, Math.trunc(e.totalCents)), credited - other);
    const delta = target - done;
    if (delta <= 0) return { outcome: 'nothing_to_reverse' as const };
    // Written directly rather than through creditInTransaction: a reversal must be recorded even
    // when it takes the balance below zero (the money has left already).
    const acc = await c.query<{ balanceCents: string }>(
      'UPDATE "Account" SET "balanceCents" = "balanceCents" - $2::bigint WHERE "id" = $1 RETURNING "balanceCents"',
      [top.accountId, delta],
    );
    await c.query(
      `INSERT INTO "LedgerEntry" ("id", "accountId", "kind", "amountCents", "reason", "actor", "createdAt") VALUES ($1, $2, 'adjustment', $3, $4, 'stripe', now())`,
      [newId('led'), top.accountId, -delta, `Stripe ${e.kind} ${e.paymentRef}`],
    );
    await c.query(`UPDATE "TopUp" SET "${e.kind === 'refund' ? 'refundedCents' : 'disputedCents'}" = $2 WHERE "id" = $1`, [top.id, target]);
    await recordAuditIn(c, {
      actor: { type: 'system', name: 'stripe' }, action: `topup.${e.kind}`, targetType: 'top_up', targetId: top.id, accountId: top.accountId,
      before: { [`${e.kind}edCents`]: done }, after: { [`${e.kind}edCents`]: target, amountCents: -delta, paymentRef: e.paymentRef, eventId: e.eventId },
    });
    return { outcome: 'reversed' as const, accountId: top.accountId, amountCents: delta, balanceCents: Number(acc.rows[0].balanceCents) };
  });
}

export interface TopUpRow {
  id: string;
  accountId: string;
  email: string | null;
  sessionId: string;
  requestedCents: number;
  creditedCents: number | null;
  currency: string;
  status: string;
  paymentRef: string | null;
  refundedCents: number;
  disputedCents: number;
  createdAt: string;
  creditedAt: string | null;
}

/** Top-ups newest first, of one account or all (console). */
export async function listTopUps(db: Db, f: { accountId?: string; before?: Keyset; limit: number }): Promise<{ rows: TopUpRow[]; next: Keyset | null }> {
  const where: string[] = [];
  const values: unknown[] = [];
  if (f.accountId) values.push(f.accountId), where.push(`t."accountId" = $${values.length}`);
  if (f.before) {
    values.push(f.before.createdAt, f.before.id);
    where.push(`(t."createdAt", t."id") < ($${values.length - 1}::timestamptz, $${values.length}::text)`);
  }
  values.push(f.limit + 1);
  const { rows } = await sql<TopUpRow>(
    db,
    `SELECT t."id", t."accountId", h."email", t."sessionId", t."requestedCents", t."creditedCents", t."currency", t."status", t."paymentRef",
            t."refundedCents", t."disputedCents", ${isoOf('t."createdAt"')} AS "createdAt", ${isoOf('t."creditedAt"')} AS "creditedAt"
       FROM "TopUp" t LEFT JOIN "AccountHolder" h ON h."accountId" = t."accountId"
       ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY t."createdAt" DESC, t."id" DESC LIMIT $${values.length}`,
    values,
  );
  const num = (v: unknown) => (v === null ? null : Number(v));
  return pageOf(
    rows.map((r) => ({ ...r, requestedCents: Number(r.requestedCents), creditedCents: num(r.creditedCents), refundedCents: Number(r.refundedCents), disputedCents: Number(r.disputedCents) })),
    f.limit,
  );
}
