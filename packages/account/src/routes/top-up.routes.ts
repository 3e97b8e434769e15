// Top-up by card: the holder picks an amount within the operator's bounds and is sent to Stripe
// Checkout. Nothing is credited here: the balance moves only from Stripe's signed event
// (stripe-webhook.ts). Without Stripe settings the page says top-ups are made by the operator.
import { Router } from 'express';
import { z } from 'zod';
import { accountBalance, createTopUp, listTopUps } from '@mediagen/db';
import { ConsoleError, formOf, Render } from '@mediagen/console';
import type { AccountDeps } from '../deps';
import { accountOf, holderOf } from '../holder-session';

/** "25", "25.5", "25.50" -> cents; no floats on the way. */
const amount = z
  .string()
  .trim()
  .regex(/^\d{1,9}(\.\d{1,2})?$/, 'an amount such as 25 or 25.50')
  .transform((s) => {
    const [whole, frac = ''] = s.split('.');
    return Number(whole) * 100 + Number(frac.padEnd(2, '0'));
  });

export function topUpRoutes(deps: AccountDeps, render: Render): Router {
  const r = Router();
  const { minCents, maxCents, currency } = deps.topUp;

  r.get('/top-up', async (req, res) => {
    const accountId = accountOf(res);
    const [balance, topUps] = await Promise.all([accountBalance(deps.db, accountId), listTopUps(deps.db, { accountId, limit: 20 })]);
    render(res, 'top-up', {
      title: 'Top up',
      balance: balance ?? 0,
      stripe: deps.stripe !== null,
      minCents,
      maxCents,
      currency: currency.toUpperCase(),
      topUps: topUps.rows,
      returned: req.query.done === '1' ? 'done' : req.query.cancelled === '1' ? 'cancelled' : null,
    });
  });

  r.post('/top-up', async (_req, res) => {
    if (!deps.stripe) throw new ConsoleError(404, 'Card top-ups are not set up on this service: the operator tops up balances.');
    const f = formOf(z.object({ amount }), res.req.body);
    if (f.amount < minCents || f.amount > maxCents)
      throw new ConsoleError(422, `Please correct the form. amount: between ${(minCents / 100).toFixed(2)} and ${(maxCents / 100).toFixed(2)} ${currency.toUpperCase()}`);
    const accountId = accountOf(res);
    const base = `${deps.publicBaseUrl}/account/top-up`;
    let session: { id: string; url: string };
    try {
      session = await deps.stripe.createCheckout({ accountId, email: holderOf(res).email, amountCents: f.amount, currency, successUrl: `${base}?done=1`, cancelUrl: `${base}?cancelled=1` });
    } catch (err) {
      deps.logError(err, 'account: Stripe checkout session failed');
      throw new ConsoleError(502, 'The payment provider did not answer. Nothing was charged; try again in a minute.');
    }
    await createTopUp(deps.db, { accountId, sessionId: session.id, requestedCents: f.amount, currency });
    // A page that moves on to Checkout (meta refresh, and a link), not a redirect: the pages' CSP
    // allows forms to post to this site only (form-action 'self'), and browsers apply that to the
    // redirects that follow a form post too, so a 303 to Stripe would be blocked.
    if (!/^https?:\/\//.test(session.url)) throw new ConsoleError(502, 'The payment provider answered with an unusable page address. Nothing was charged.');
    render(res, 'checkout', { title: 'Continue to payment', url: session.url, refreshTo: session.url, amount: f.amount, currency: currency.toUpperCase() });
  });

  return r;
}
