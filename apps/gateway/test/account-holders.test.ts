// The account holder's side on the real Postgres and Redis: sign-up with an emailed verification
// link (SMTP catcher), sign-in and its refusals, password reset, CSRF on every form, the developer
// options page (named keys shown once, last used, revoke, 20 live at most), the ledger and its CSV,
// sign-up modes, and an operator disabling a holder (sessions and keys stop at once).
import request from 'supertest';
import { MODELS } from '@mediagen/catalog';
import { accountBalance, findHolderByEmail, listAuditEvents, setAccountDisabled } from '@mediagen/db';
import { Harness, startHarness } from './harness';
import { browser, Mailbox, startMailbox } from './account-support';
import { setAccountDisabledEverywhere } from '../src/services/key-admin';
import { waitFor } from '../../../test/e2e/support/wait';

let h: Harness;
let mail: Mailbox;
const PASSWORD = 'a long enough password';

beforeAll(async () => {
  mail = await startMailbox();
  h = await startHarness('account_holders', { SMTP_URL: mail.url, SIGNUP_BALANCE_CENTS: '250', MAIL_FROM: 'test <t@example.com>' });
});
afterAll(async () => {
  await h.close();
  await mail.close();
});

/** Signs up and verifies through the emailed link; returns the signed-in browser. */
async function signedUp(email: string, on: Harness = h) {
  const b = browser(on.app);
  await b.get('/account/signup');
  const r = await b.post('/account/signup', { email, password: PASSWORD });
  expect(r.status).toBe(200);
  expect(r.text).toContain('Check your email');
  const link = await mail.link(email, '/account/verify?token=');
  const u = new URL(link);
  await b.get(`${u.pathname}${u.search}`);
  const v = await b.post('/account/verify', { token: u.searchParams.get('token')! });
  expect(v.status).toBe(303);
  expect(v.headers.location).toBe('/account?welcome=1');
  return { b, link };
}

describe('sign-up, verification and sign-in', () => {
  it('signs up with the opening balance, verifies by the emailed single-use link, and signs in', async () => {
    const { b, link } = await signedUp('Ann@Example.com'.toLowerCase());
    const home = await b.get('/account');
    expect(home.status).toBe(200);
    expect(home.text).toContain('ann@example.com');
    expect(home.text).toMatch(/id="balance">\$2\.50</);
    const holder = (await findHolderByEmail(h.deps.db, 'ann@example.com'))!;
    expect(holder.emailVerifiedAt).not.toBeNull();
    expect(await accountBalance(h.deps.db, holder.accountId)).toBe(250);
    await h.assertLedgerInvariant();
    // The link works once.
    const again = browser(h.app);
    const token = new URL(link).searchParams.get('token')!;
    await again.get(`/account/verify?token=${token}`);
    expect((await again.post('/account/verify', { token })).status).toBe(410);
    // Sign out, then sign in with the password.
    expect((await b.post('/account/signout')).status).toBe(303);
    expect((await b.get('/account')).headers.location).toMatch(/^\/account\/signin/);
    await b.get('/account/signin');
    expect((await b.post('/account/signin', { email: 'ann@example.com', password: 'wrong password!!' })).status).toBe(401);
    await b.get('/account/signin');
    const ok = await b.post('/account/signin', { email: 'ANN@example.com', password: PASSWORD, next: '/account/keys' });
    expect(ok.status).toBe(303);
    expect(ok.headers.location).toBe('/account/keys');
    const cookies = ([] as string[]).concat(ok.headers['set-cookie'] ?? []);
    expect(cookies.find((c) => c.startsWith('mg_account='))).toMatch(/HttpOnly/);
    expect(cookies.find((c) => c.startsWith('mg_account='))).toMatch(/SameSite=Strict/);
  });

  it('explains malformed emails and short passwords; an address already taken is not revealed', async () => {
    const b = browser(h.app);
    await b.get('/account/signup');
    const badEmail = await b.post('/account/signup', { email: 'not-an-email', password: PASSWORD });
    expect(badEmail.status).toBe(422);
    expect(badEmail.text).toContain('Email: a valid email address');
    const shortPw = await b.post('/account/signup', { email: 'bob@example.com', password: 'short' });
    expect(shortPw.status).toBe(422);
    expect(shortPw.text).toContain('Password: at least 10 characters');
    await signedUp('carol@example.com');
    const before = mail.messages.length;
    const dup = await b.post('/account/signup', { email: 'carol@example.com', password: PASSWORD });
    expect(dup.status).toBe(200);
    expect(dup.text).toContain('Check your email');
    await mail.link('carol@example.com', '/account/forgot');
    expect(mail.messages.length).toBe(before + 1);
  });

  it('refuses every form without its CSRF token (403), before and after sign-in', async () => {
    const b = browser(h.app);
    await b.get('/account/signup');
    expect((await b.post('/account/signup', { email: 'dan@example.com', password: PASSWORD }, { csrf: false })).status).toBe(403);
    expect(await findHolderByEmail(h.deps.db, 'dan@example.com')).toBeNull();
    const { b: signed } = await signedUp('erin@example.com');
    expect((await signed.agent.post('/account/keys').type('form').send({ name: 'x' })).status).toBe(403);
    expect((await signed.agent.post('/account/keys').type('form').send({ name: 'x', _csrf: 'forged' })).status).toBe(403);
    expect((await signed.get('/account/keys')).text).toContain('No keys yet');
  });

  it('an unverified holder cannot sign in and is sent a new link', async () => {
    const b = browser(h.app);
    await b.get('/account/signup');
    await b.post('/account/signup', { email: 'fay@example.com', password: PASSWORD });
    await mail.link('fay@example.com', '/account/verify?token=');
    const n = mail.messages.filter((m) => m.to === 'fay@example.com').length;
    await b.get('/account/signin');
    const r = await b.post('/account/signin', { email: 'fay@example.com', password: PASSWORD });
    expect(r.status).toBe(403);
    expect(r.text).toContain('Confirm your email address first');
    expect(mail.messages.filter((m) => m.to === 'fay@example.com').length).toBe(n + 1);
  });

  it('resets a password by the emailed link: the old password and the old sessions stop', async () => {
    const { b: old } = await signedUp('gus@example.com');
    const b = browser(h.app);
    await b.get('/account/forgot');
    expect((await b.post('/account/forgot', { email: 'gus@example.com' })).text).toContain('Check your email');
    expect((await b.post('/account/forgot', { email: 'nobody@example.com' })).text).toContain('Check your email');
    const link = new URL(await mail.link('gus@example.com', '/account/reset?token='));
    await b.get(`${link.pathname}${link.search}`);
    const r = await b.post('/account/reset', { token: link.searchParams.get('token')!, password: 'a brand new password' });
    expect(r.status).toBe(303);
    expect((await b.get('/account')).status).toBe(200);
    expect((await old.get('/account')).status).toBe(303); // the earlier session ended
    const c = browser(h.app);
    await c.get('/account/signin');
    expect((await c.post('/account/signin', { email: 'gus@example.com', password: PASSWORD })).status).toBe(401);
    await c.get('/account/signin');
    expect((await c.post('/account/signin', { email: 'gus@example.com', password: 'a brand new password' })).status).toBe(303);
    // The link is used up.
    expect((await c.get(`${link.pathname}${link.search}`)).status).toBe(410);
  });
});

describe('developer options: API keys', () => {
  it('creates a named key shown once, which works on the API, records last use, and revokes', async () => {
    const { b } = await signedUp('hal@example.com');
    await b.get('/account/keys');
    const created = await b.post('/account/keys', { name: 'billing <script>service</script>' });
    expect(created.status).toBe(200);
    const key = /id="new-key-value">([^<]+)</.exec(created.text)![1];
    expect(key).toMatch(/^mg_/);
    expect(created.text).toContain('billing &lt;script&gt;service&lt;/script&gt;');
    expect(created.text).not.toContain('<script>service');
    const list = await b.get('/account/keys');
    expect(list.text).not.toContain(key);
    expect(list.text).toContain(key.slice(0, 9));
    expect(list.text).toContain('never');
    const bal = await request(h.app).get('/api/balance').set('Authorization', `Bearer ${key}`);
    expect(bal.status).toBe(200);
    expect(bal.body.balanceCents).toBe(250);
    expect(bal.body.topUpUrl).toBe('http://127.0.0.1:1/account/top-up');
    await h.deps.keyUsage.flush();
    expect((await b.get('/account/keys')).text).not.toContain('>never<');
    const keyId = /action="\/account\/keys\/([^/]+)\/revoke"/.exec(list.text)![1];
    expect((await b.post(`/account/keys/${keyId}/revoke`)).status).toBe(303);
    expect((await request(h.app).get('/api/balance').set('Authorization', `Bearer ${key}`)).status).toBe(401);
  });

  it('never lets a holder revoke another account\'s key (404), and keeps 20 live keys at most', async () => {
    const other = await h.newAccount();
    const { b } = await signedUp('ivy@example.com');
    await b.get('/account/keys');
    const keys = await request(h.app).get(`/admin/accounts/${other.id}/api-keys`).set(h.admin());
    const otherKeyId = keys.body.keys[0].id as string;
    expect((await b.post(`/account/keys/${otherKeyId}/revoke`)).status).toBe(404);
    expect((await request(h.app).get('/api/balance').set(other.auth)).status).toBe(200);
    for (let i = 0; i < 20; i++) expect((await b.post('/account/keys', { name: `k${i}` })).status).toBe(200);
    const over = await b.post('/account/keys', { name: 'one too many' });
    expect(over.status).toBe(422);
    expect(over.text).toContain('20 live keys');
    expect((await b.post('/account/keys', { name: '' })).status).toBe(422);
  });
});

describe('balance, ledger and CSV', () => {
  it('shows the balance and ledger of the holder only, and exports it as CSV', async () => {
    const { b } = await signedUp('jon@example.com');
    const holder = (await findHolderByEmail(h.deps.db, 'jon@example.com'))!;
    await request(h.app).post(`/admin/accounts/${holder.accountId}/credits`).set(h.admin()).send({ amountCents: 1000, reason: '=HYPERLINK("x")' });
    const page = await b.get('/account/ledger');
    expect(page.text).toMatch(/id="balance">\$12\.50</);
    expect(page.text).toContain('opening balance (sign-up)');
    const csv = await b.get('/account/ledger.csv');
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toMatch(/text\/csv/);
    const lines = csv.text.trim().split('\r\n');
    expect(lines[0]).toBe('id,created_at,kind,amount_cents,task_id,reason');
    expect(lines).toHaveLength(3);
    expect(csv.text).toContain(`"'=HYPERLINK(""x"")"`); // never a formula in a spreadsheet
    expect(csv.text).toContain('"250"');
    // Someone else's task page is not found.
    expect((await b.get('/account/tasks/some-other-task')).status).toBe(404);
  });

  it('lists the models offered here with their prices: the whole catalog, or what SOLD_MODELS sells', async () => {
    const offered = (html: string) => html.slice(html.indexOf('<h2>Models offered here</h2>'));
    const all = offered((await (await signedUp('kim@example.com')).b.get('/account/ledger')).text);
    for (const id of Object.keys(MODELS)) expect(all).toContain(`<code>${id}</code>`);
    expect(all).toContain('image-a-5.0');
    expect(all).toContain('any resolution: 0.20 USD per image');

    const sold = await startHarness('account_sold', { SMTP_URL: mail.url, SOLD_MODELS: 'image-b-2.5,video-a-h3' });
    try {
      const page = await (await signedUp('lee@example.com', sold)).b.get('/account/ledger');
      expect(page.status).toBe(200);
      expect(page.text).toMatch(/id="balance">/);
      const some = offered(page.text);
      expect(some).toContain('<code>image-b-2.5</code>');
      expect(some).toContain('any resolution: 0.03 USD per image');
      expect(some).toContain('<code>video-a-h3</code>');
      expect(some).toContain('480p, effort 1x: 0.007 USD per second');
      for (const id of Object.keys(MODELS).filter((m) => m !== 'image-b-2.5' && m !== 'video-a-h3')) expect(some).not.toContain(`<code>${id}</code>`);
      expect(some).not.toContain('image-a-5.0');
    } finally {
      await sold.close();
    }
  });
});

describe('sign-up modes and operators', () => {
  it('closed refuses sign-up; invite needs a live invitation, used once', async () => {
    const closed = await startHarness('account_closed', { SIGNUP_MODE: 'closed' });
    try {
      const b = browser(closed.app);
      expect((await b.get('/account/signup')).text).toContain('Sign-up is closed');
      expect((await b.post('/account/signup', { email: 'kim@example.com', password: PASSWORD })).status).toBe(403);
    } finally {
      await closed.close();
    }
    const inv = await startHarness('account_invite', { SIGNUP_MODE: 'invite' });
    try {
      const b = browser(inv.app);
      await b.get('/account/signup');
      expect((await b.post('/account/signup', { email: 'lee@example.com', password: PASSWORD })).status).toBe(403);
      const { newLinkToken } = await import('@mediagen/account');
      const token = await newLinkToken({ db: inv.deps.db } as never, 'invite', null, 'operator:test');
      await b.get(`/account/signup?invite=${token}`);
      expect((await b.post('/account/signup', { email: 'lee@example.com', password: PASSWORD, invite: token })).status).toBe(200);
      expect(await findHolderByEmail(inv.deps.db, 'lee@example.com')).not.toBeNull();
      expect((await b.post('/account/signup', { email: 'may@example.com', password: PASSWORD, invite: token })).status).toBe(403);
    } finally {
      await inv.close();
    }
  });

  it('a disabled holder\'s sessions and keys stop at once, and come back when enabled', async () => {
    const { b } = await signedUp('ned@example.com');
    await b.get('/account/keys');
    const key = /id="new-key-value">([^<]+)</.exec((await b.post('/account/keys', { name: 'ci' })).text)![1];
    const auth = { Authorization: `Bearer ${key}` };
    expect((await request(h.app).get('/api/balance').set(auth)).status).toBe(200); // now cached
    const holder = (await findHolderByEmail(h.deps.db, 'ned@example.com'))!;
    expect(await setAccountDisabledEverywhere(h.deps, holder.accountId, true)).toBe(true);
    // The revocation broadcast reaches this gateway's cache through Redis pub/sub.
    let status = 0;
    const balanceIs = (want: number) => async () => (status = (await request(h.app).get('/api/balance').set(auth)).status) === want;
    await waitFor(balanceIs(401), 5_000, 'the key refused').catch(() => undefined);
    expect(status).toBe(401);
    expect((await b.get('/account')).status).toBe(303);
    const s = browser(h.app);
    await s.get('/account/signin');
    expect((await s.post('/account/signin', { email: 'ned@example.com', password: PASSWORD })).status).toBe(403);
    expect(await setAccountDisabled(h.deps.db, holder.accountId, true)).toEqual({ changed: false, keyHashes: [] });
    expect(await setAccountDisabledEverywhere(h.deps, holder.accountId, false)).toBe(true);
    await waitFor(balanceIs(200), 5_000, 'the key served again').catch(() => undefined);
    expect(status).toBe(200);
    // Every change is in the audit trail: sign-up, the key, disable and enable.
    const { events } = await listAuditEvents(h.deps.db, { accountId: holder.accountId, limit: 20 });
    expect(events.map((e) => e.action).sort()).toEqual(['api_key.create', 'holder.disable', 'holder.enable', 'holder.signup', 'holder.verify_email']);
    expect(JSON.stringify(events)).not.toContain(key);
  });
});

describe('sign-in limit', () => {
  it('limits failed sign-ins per address (429 with Retry-After), and the right password is refused meanwhile too', async () => {
    // Its own gateway (own Redis prefix): every test here signs in from the same address.
    const own = await startHarness('account_limit', { SMTP_URL: mail.url });
    const saved = h;
    h = own;
    try {
      await signedUp('kay@example.com');
      const b = browser(h.app);
      for (let i = 0; i < 10; i++) {
        await b.get('/account/signin');
        expect((await b.post('/account/signin', { email: 'kay@example.com', password: `wrong password ${i}` })).status).toBe(401);
      }
      await b.get('/account/signin');
      const blocked = await b.post('/account/signin', { email: 'kay@example.com', password: PASSWORD });
      expect(blocked.status).toBe(429);
      expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
      expect(blocked.text).toContain('reset your password');
    } finally {
      h = saved;
      await own.close();
    }
  });
});
