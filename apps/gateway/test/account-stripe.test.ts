// Top-up by card through a stand-in of Stripe's API: the holder is sent to Checkout with the account
// in client_reference_id; only the signed checkout.session.completed credits, once per event and
// per session, with Stripe's amount; bad signatures, unknown sessions and other accounts credit
// nothing; refunds and disputes are negative ledger entries (the balance may go below zero).
import request from 'supertest';
import { accountBalance, findHolderByEmail, listAuditEvents, sql } from '@mediagen/db';
import { Harness, startHarness } from './harness';
import { browser, Mailbox, signedEvent, startMailbox, startStripeStandIn, STRIPE_ENV, StripeStandIn } from './account-support';

let h: Harness;
let mail: Mailbox;
let stripe: StripeStandIn;
const PASSWORD = 'a long enough password';

beforeAll(async () => {
  mail = await startMailbox();
  stripe = await startStripeStandIn();
  h = await startHarness('account_stripe', { SMTP_URL: mail.url, ...STRIPE_ENV(stripe), TOPUP_MIN_CENTS: '500', TOPUP_MAX_CENTS: '50000' });
});
afterAll(async () => {
  await h.close();
  await mail.close();
  await stripe.close();
});

async function holder(email: string) {
  const b = browser(h.app);
  await b.get('/account/signup');
  await b.post('/account/signup', { email, password: PASSWORD });
  const u = new URL(await mail.link(email, '/account/verify?token='));
  await b.get(`${u.pathname}${u.search}`);
  await b.post('/account/verify', { token: u.searchParams.get('token')! });
  const accountId = (await findHolderByEmail(h.deps.db, email))!.accountId;
  return { b, accountId };
}

const post = (e: { payload: string; header: string }) =>
  request(h.app).post('/billing/stripe/webhook').set('Content-Type', 'application/json').set('Stripe-Signature', e.header).send(e.payload);

const completed = (sessionId: string, accountId: string, cents: number, pi: string) => ({
  id: sessionId, object: 'checkout.session', payment_status: 'paid', status: 'complete', amount_total: cents, currency: 'usd', client_reference_id: accountId, payment_intent: pi,
});

async function checkout(b: ReturnType<typeof browser>, amount: string) {
  await b.get('/account/top-up');
  const r = await b.post('/account/top-up', { amount });
  expect(r.status).toBe(200);
  return stripe.sessions[stripe.sessions.length - 1];
}

describe('Stripe top-up', () => {
  it('sends the holder to Checkout and credits once from the signed event, sent twice', async () => {
    const { b, accountId } = await holder('pat@example.com');
    const page = await b.get('/account/top-up');
    expect(page.text).toContain('Pay by card');
    expect(page.text).toContain('5.00 to 500.00');
    const before = stripe.sessions.length;
    await b.get('/account/top-up');
    const r = await b.post('/account/top-up', { amount: '25.50' });
    expect(r.status).toBe(200);
    expect(stripe.sessions.length).toBe(before + 1);
    const s = stripe.sessions[before];
    // On to Checkout by a page (meta refresh and a link): the CSP's form-action would block a redirect.
    expect(r.text).toContain(`<meta http-equiv="refresh" content="0;url=https://checkout.stripe.test/c/pay/${s.id}">`);
    expect(r.text).toContain(`href="https://checkout.stripe.test/c/pay/${s.id}"`);
    expect(s.params.get('client_reference_id')).toBe(accountId);
    expect(s.params.get('line_items[0][price_data][unit_amount]')).toBe('2550');
    expect(s.params.get('mode')).toBe('payment');

    // Stripe's amount is what counts (here it differs from what the form asked, on purpose).
    const event = signedEvent('checkout.session.completed', completed(s.id, accountId, 2600, 'pi_pat_1'));
    expect((await post(event)).status).toBe(200);
    expect((await post(event)).status).toBe(200); // redelivered: credits nothing more
    // Another event for the same session (a replay with a new id) credits nothing either.
    expect((await post(signedEvent('checkout.session.completed', completed(s.id, accountId, 2600, 'pi_pat_1')))).status).toBe(200);
    expect(await accountBalance(h.deps.db, accountId)).toBe(2600);
    expect((await listAuditEvents(h.deps.db, { accountId, action: 'topup.credit', limit: 5 })).events).toHaveLength(1);
    const ledger = await b.get('/account/ledger');
    expect(ledger.text).toContain('Stripe top-up pi_pat_1');
    expect((await b.get('/account/top-up')).text).toContain('pi_pat_1');
    await h.assertLedgerInvariant();
  });

  it('refuses amounts outside the bounds, and a bad or missing signature is 400 with nothing credited', async () => {
    const { b, accountId } = await holder('quin@example.com');
    await b.get('/account/top-up');
    expect((await b.post('/account/top-up', { amount: '4.99' })).status).toBe(422);
    expect((await b.post('/account/top-up', { amount: '500.01' })).status).toBe(422);
    expect((await b.post('/account/top-up', { amount: '1e3' })).status).toBe(422);
    const s = await checkout(b, '10');
    const good = signedEvent('checkout.session.completed', completed(s.id, accountId, 1000, 'pi_quin'));
    const forged = signedEvent('checkout.session.completed', completed(s.id, accountId, 1000, 'pi_quin'), good.id, 'whsec_not_the_secret');
    const r = await post(forged);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('invalid_signature');
    expect((await request(h.app).post('/billing/stripe/webhook').set('Content-Type', 'application/json').send(good.payload)).status).toBe(400);
    // The body changed after signing: 400.
    expect((await request(h.app).post('/billing/stripe/webhook').set('Content-Type', 'application/json').set('Stripe-Signature', good.header).send(good.payload.replace('1000', '100000'))).status).toBe(400);
    expect(await accountBalance(h.deps.db, accountId)).toBe(0);
    // The genuine one still works afterwards (a refused event was not recorded as seen).
    expect((await post(good)).status).toBe(200);
    expect(await accountBalance(h.deps.db, accountId)).toBe(1000);
  });

  it('credits nothing for an unknown session or one made for another account', async () => {
    const { b, accountId } = await holder('ray@example.com');
    const other = await holder('sue@example.com');
    const s = await checkout(b, '20');
    expect((await post(signedEvent('checkout.session.completed', completed('cs_unknown', accountId, 2000, 'pi_x')))).status).toBe(200);
    expect((await post(signedEvent('checkout.session.completed', completed(s.id, other.accountId, 2000, 'pi_x')))).status).toBe(200);
    expect(await accountBalance(h.deps.db, accountId)).toBe(0);
    expect(await accountBalance(h.deps.db, other.accountId)).toBe(0);
  });

  it('refunds and disputes are negative entries with the payment reference, capped at the credit; the balance may go below zero', async () => {
    const { b, accountId } = await holder('tom@example.com');
    const s = await checkout(b, '30');
    await post(signedEvent('checkout.session.completed', completed(s.id, accountId, 3000, 'pi_tom')));
    // Spend some of it: an operator adjustment stands in for tasks here.
    await request(h.app).post(`/admin/accounts/${accountId}/credits`).set(h.admin()).send({ amountCents: -2000, reason: 'spent' });
    const refund = signedEvent('charge.refunded', { id: 'ch_tom', object: 'charge', payment_intent: 'pi_tom', amount: 3000, amount_refunded: 1000 });
    expect((await post(refund)).status).toBe(200);
    expect((await post(refund)).status).toBe(200);
    expect(await accountBalance(h.deps.db, accountId)).toBe(0);
    // A second, cumulative refund of 1,500 in all: 500 more.
    await post(signedEvent('charge.refunded', { id: 'ch_tom', object: 'charge', payment_intent: 'pi_tom', amount: 3000, amount_refunded: 1500 }));
    expect(await accountBalance(h.deps.db, accountId)).toBe(-500);
    // A dispute of the whole charge reverses only what was not refunded yet.
    await post(signedEvent('charge.dispute.created', { id: 'dp_tom', object: 'dispute', payment_intent: 'pi_tom', amount: 3000 }));
    expect(await accountBalance(h.deps.db, accountId)).toBe(-2000);
    const { rows } = await sql<{ amountCents: string; reason: string; actor: string }>(h.deps.db, `SELECT "amountCents", "reason", "actor" FROM "LedgerEntry" WHERE "accountId" = $1 AND "actor" = 'stripe' ORDER BY "createdAt"`, [accountId]);
    expect(rows.map((r) => [Number(r.amountCents), r.reason])).toEqual([
      [3000, 'Stripe top-up pi_tom'],
      [-1000, 'Stripe refund pi_tom'],
      [-500, 'Stripe refund pi_tom'],
      [-1500, 'Stripe dispute pi_tom'],
    ]);
    await h.assertLedgerInvariant();
    // Below zero: the ledger page says so, and a submit is refused with 402 and the top-up URL.
    expect((await b.get('/account/ledger')).text).toContain('below zero');
    await b.get('/account/keys');
    const key = /id="new-key-value">([^<]+)</.exec((await b.post('/account/keys', { name: 'k' })).text)![1];
    const sub = await request(h.app).post('/api/image/generate').set('Authorization', `Bearer ${key}`).send({ model: 'image-b-2.5', prompt: 'a cat' });
    expect(sub.status).toBe(402);
    expect(sub.body.topUpUrl).toBe('http://127.0.0.1:1/account/top-up');
  });

  it('without Stripe settings the page says the operator tops up, and the webhook is not there', async () => {
    const plain = await startHarness('account_nostripe', { SMTP_URL: mail.url });
    try {
      const b = browser(plain.app);
      await b.get('/account/signup');
      await b.post('/account/signup', { email: 'uma@example.com', password: PASSWORD });
      const u = new URL(await mail.link('uma@example.com', '/account/verify?token='));
      await b.get(`${u.pathname}${u.search}`);
      await b.post('/account/verify', { token: u.searchParams.get('token')! });
      const page = await b.get('/account/top-up');
      expect(page.text).toContain('topped up by its operator');
      expect(page.text).not.toContain('Pay by card');
      expect((await b.post('/account/top-up', { amount: '10' })).status).toBe(404);
      expect((await request(plain.app).post('/billing/stripe/webhook').send('{}')).status).toBe(404);
      expect((await request(plain.app).get('/billing/top-up')).text).toContain('url=/account/top-up');
    } finally {
      await plain.close();
    }
  });
});
