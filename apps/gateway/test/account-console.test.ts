// Operators see the holders in the console: the Holders list (email, verified, sign-up time,
// state), disable (sessions and API keys stop at once) and enable, invitation links for
// SIGNUP_MODE=invite, and card top-ups with their payment reference. Viewers read only.
import request from 'supertest';
import { findHolderByEmail, listAuditEvents } from '@mediagen/db';
import { Harness, startHarness } from './harness';
import { browser, Mailbox, signedEvent, startMailbox, startStripeStandIn, STRIPE_ENV, StripeStandIn } from './account-support';
import { waitFor } from '../../../test/e2e/support/wait';

let h: Harness;
let mail: Mailbox;
let stripe: StripeStandIn;
const PASSWORD = 'a long enough password';

beforeAll(async () => {
  mail = await startMailbox();
  stripe = await startStripeStandIn();
  h = await startHarness('account_console', { SMTP_URL: mail.url, SIGNUP_MODE: 'invite', ...STRIPE_ENV(stripe) });
  for (const [name, role] of [['olga', 'admin'], ['vic', 'viewer']])
    expect((await request(h.app).post('/admin/operators').set(h.admin()).send({ name, role, password: 'operator password 123' })).status).toBe(201);
});
afterAll(async () => {
  await h.close();
  await mail.close();
  await stripe.close();
});

async function operator(name: string) {
  const b = browser(h.app);
  await b.get('/console/login');
  const r = await b.post('/console/login', { name, password: 'operator password 123', next: '/console/holders' });
  expect(r.status).toBe(303);
  await b.get('/console/holders'); // the session's CSRF token for the forms that follow
  return b;
}

it('an admin invites a holder, sees them, their top-up, disables and enables them; a viewer cannot', async () => {
  const op = await operator('olga');
  const invited = await op.post('/console/holders/invites');
  expect(invited.status).toBe(200);
  const link = new URL(/id="invite-url">([^<]+)</.exec(invited.text)![1]);
  expect(link.pathname).toBe('/account/signup');
  expect((await op.get('/console/holders')).text).not.toContain(link.searchParams.get('invite')!); // shown once

  // The invited person signs up, verifies, tops up by card.
  const b = browser(h.app);
  await b.get(`${link.pathname}${link.search}`);
  expect((await b.post('/account/signup', { email: 'wes@example.com', password: PASSWORD, invite: link.searchParams.get('invite')! })).status).toBe(200);
  const v = new URL(await mail.link('wes@example.com', '/account/verify?token='));
  await b.get(`${v.pathname}${v.search}`);
  await b.post('/account/verify', { token: v.searchParams.get('token')! });
  const accountId = (await findHolderByEmail(h.deps.db, 'wes@example.com'))!.accountId;
  await b.get('/account/top-up');
  await b.post('/account/top-up', { amount: '12' });
  const s = stripe.sessions[stripe.sessions.length - 1];
  const ev = signedEvent('checkout.session.completed', { id: s.id, object: 'checkout.session', payment_status: 'paid', amount_total: 1200, currency: 'usd', client_reference_id: accountId, payment_intent: 'pi_wes' });
  expect((await request(h.app).post('/billing/stripe/webhook').set('Content-Type', 'application/json').set('Stripe-Signature', ev.header).send(ev.payload)).status).toBe(200);
  await b.get('/account/keys');
  const key = /id="new-key-value">([^<]+)</.exec((await b.post('/account/keys', { name: 'prod' })).text)![1];
  const auth = { Authorization: `Bearer ${key}` };
  expect((await request(h.app).get('/api/balance').set(auth)).body.balanceCents).toBe(1200);

  const list = await op.get('/console/holders');
  expect(list.text).toContain('wes@example.com');
  expect(list.text).toMatch(/wes@example\.com<\/td>[\s\S]*?<td>yes<\/td>[\s\S]*?\$12\.00[\s\S]*?active/);
  const ups = await op.get('/console/top-ups');
  expect(ups.text).toContain('pi_wes');
  expect(ups.text).toContain(s.id);

  // A viewer cannot disable.
  const viewer = await operator('vic');
  await viewer.get('/console/holders');
  expect((await viewer.post(`/console/holders/${accountId}/disable`)).status).toBe(403);

  // Disable: the holder's page session and key stop at once.
  await op.get('/console/holders');
  expect((await op.post(`/console/holders/${accountId}/disable`)).status).toBe(303);
  expect((await op.get('/console/holders')).text).toMatch(/wes@example\.com[\s\S]*?disabled/);
  expect((await b.get('/account')).status).toBe(303);
  let status = 0;
  const balanceIs = (want: number) => async () => (status = (await request(h.app).get('/api/balance').set(auth)).status) === want;
  await waitFor(balanceIs(401), 5_000, 'the key refused').catch(() => undefined);
  expect(status).toBe(401);
  expect((await op.post(`/console/holders/${accountId}/enable`)).status).toBe(303);
  await waitFor(balanceIs(200), 5_000, 'the key served again').catch(() => undefined);
  expect(status).toBe(200);
  const { events } = await listAuditEvents(h.deps.db, { accountId, action: 'holder.disable', limit: 5 });
  expect(events[0]).toMatchObject({ actorType: 'operator', actorName: 'olga' });
  expect((await op.post('/console/holders/acc_nope/disable')).status).toBe(404);
});
