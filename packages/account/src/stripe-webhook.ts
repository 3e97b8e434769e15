// POST /billing/stripe/webhook: Stripe's events, verified with the SDK against the raw body (a bad
// or missing signature is 400 and nothing moves). checkout.session.completed (and
// async_payment_succeeded) credit the session's top-up once; charge.refunded and
// charge.dispute.created reverse it as negative ledger entries. Every other event is acknowledged.
import express, { Router } from 'express';
import type Stripe from 'stripe';
import { creditCheckoutSession, Db, reverseTopUp } from '@mediagen/db';
import { AppError } from '@mediagen/errors';
import type { StripeBilling } from './stripe-billing';

export interface StripeWebhookDeps {
  db: Db;
  stripe: StripeBilling | null;
  logInfo(fields: Record<string, unknown>, msg: string): void;
  logError(err: unknown, msg: string): void;
  /** After a credit or reversal commits (the audit trail, metrics). */
  onMoney?(e: { accountId: string; kind: 'topup' | 'refund' | 'dispute'; amountCents: number; reference: string }): Promise<void> | void;
}

const refOf = (v: string | { id: string } | null | undefined): string | null => (typeof v === 'string' ? v : v?.id ?? null);

export function stripeWebhookRouter(deps: StripeWebhookDeps): Router {
  const r = Router();
  r.post('/billing/stripe/webhook', express.raw({ type: () => true, limit: '512kb' }), async (req, res, next) => {
    if (!deps.stripe) return next(new AppError('not_found', 'Card top-ups are not configured on this service'));
    let event: Stripe.Event;
    try {
      event = deps.stripe.verify(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0), req.get('stripe-signature'));
    } catch (err) {
      deps.logInfo({ err: (err as Error).message }, 'stripe webhook refused: bad signature');
      return next(new AppError('invalid_signature', 'The Stripe-Signature header does not verify against this body'));
    }
    try {
      const result = await handle(deps, event);
      deps.logInfo({ eventId: event.id, type: event.type, result }, 'stripe event');
      res.json({ received: true });
    } catch (err) {
      // 500: Stripe retries the event later; the event id was not recorded (the transaction rolled back).
      next(err);
    }
  });
  return r;
}

async function handle(deps: StripeWebhookDeps, event: Stripe.Event): Promise<string> {
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded': {
      const s = event.data.object;
      if (s.payment_status !== 'paid' || s.amount_total == null || !s.currency) return 'not paid yet';
      const out = await creditCheckoutSession(deps.db, {
        eventId: event.id,
        eventType: event.type,
        sessionId: s.id,
        clientReferenceId: s.client_reference_id,
        amountCents: s.amount_total,
        currency: s.currency,
        paymentRef: refOf(s.payment_intent),
      });
      if (out.outcome === 'credited') await deps.onMoney?.({ accountId: out.accountId, kind: 'topup', amountCents: out.amountCents, reference: refOf(s.payment_intent) ?? s.id });
      if (out.outcome === 'above_maximum') deps.logError(new Error(`top-up ${s.id} paid but refused: balance maximum`), 'stripe: paid top-up not credited (refund it in Stripe)');
      return out.outcome;
    }
    case 'charge.refunded': {
      const c = event.data.object;
      const ref = refOf(c.payment_intent);
      if (!ref) return 'no payment intent';
      const out = await reverseTopUp(deps.db, { eventId: event.id, eventType: event.type, paymentRef: ref, kind: 'refund', totalCents: c.amount_refunded });
      if (out.outcome === 'reversed') await deps.onMoney?.({ accountId: out.accountId, kind: 'refund', amountCents: -out.amountCents, reference: ref });
      return out.outcome;
    }
    case 'charge.dispute.created': {
      const d = event.data.object;
      const ref = refOf(d.payment_intent);
      if (!ref) return 'no payment intent';
      const out = await reverseTopUp(deps.db, { eventId: event.id, eventType: event.type, paymentRef: ref, kind: 'dispute', totalCents: d.amount });
      if (out.outcome === 'reversed') await deps.onMoney?.({ accountId: out.accountId, kind: 'dispute', amountCents: -out.amountCents, reference: ref });
      return out.outcome;
    }
    default:
      return 'ignored';
  }
}
