// The account holder's side end to end in headless Chromium, on real processes: sign up, confirm
// by the emailed link (a local SMTP catcher), create a key, submit a task through the API with it
// and see it with its thumbnail, top up through a local stand-in of Stripe's API with a signed
// event sent twice (credited once), add a webhook and receive a signed event. The operator then sees
// the holder and the top-up in the console. With SCREENSHOTS=1 every page is saved in docs/account/.
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import type { Stack } from './support/stack';
import { e2eSuite } from './support/suite';
import { apiClient } from './support/api';
import { browserMissing, launchChromium } from './support/browser';
import { Receiver, startReceiver, headersOf } from './support/webhook-receiver';
import { Mailbox, signedEvent, startMailbox, startStripeStandIn, STRIPE_ENV, StripeStandIn } from './support/account-doubles';
import { eventually } from './support/wait';

jest.setTimeout(120_000);

const SHOTS = process.env.SCREENSHOTS === '1' ? path.resolve(__dirname, '../../docs/account') : null;
const EMAIL = 'holder@example.com';
const PASSWORD = 'correct horse battery staple';

let stack: Stack;
let api: ReturnType<typeof apiClient>;
let mail: Mailbox;
let stripe: StripeStandIn;
let receiver: Receiver;
let context: BrowserContext;
let closeBrowser: (() => Promise<void>) | undefined;
const skip = browserMissing();
const browserIt = skip ? it.skip : it;

e2eSuite(
  'account',
  {
    stack: async () => {
      mail = await startMailbox();
      stripe = await startStripeStandIn();
      return { env: { SMTP_URL: mail.url, SIGNUP_BALANCE_CENTS: '500', ...STRIPE_ENV(stripe), WEBHOOK_RETRY_BASE_MS: '500' } };
    },
  },
  (s) => ({ stack, api } = s),
);

beforeAll(async () => {
  receiver = await startReceiver();
  if (!skip) ({ context, close: closeBrowser } = await launchChromium());
  if (SHOTS) fs.mkdirSync(SHOTS, { recursive: true });
}, 60_000);
afterAll(async () => {
  await closeBrowser?.();
  await receiver?.close();
  await mail?.close();
  await stripe?.close();
});

/** `eventually` with this file's generous default: a browser on a loaded machine is slow. */
const until = <T>(what: string, f: () => Promise<T | undefined | false>, ms = 30_000): Promise<T> => eventually(what, f, ms);

const shot = async (page: Page, name: string) => {
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
};
const submitAndWait = (page: Page) => Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);

browserIt('a holder signs up, confirms, makes a key, runs a task, tops up by card and receives a webhook', async () => {
  const page = await context.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('dialog', (d) => void d.accept());
  const base = stack.gatewayUrl;

  // Sign up and confirm by the emailed link.
  await page.goto(`${base}/account`);
  expect(page.url()).toContain('/account/signin');
  await shot(page, 'signin');
  await page.goto(`${base}/account/signup`);
  await page.fill('#signup input[name=email]', EMAIL);
  await page.fill('#signup input[name=password]', PASSWORD);
  await shot(page, 'signup');
  await Promise.all([page.waitForNavigation(), page.click('#signup button')]);
  expect(await page.textContent('#check-email')).toContain(EMAIL);
  await shot(page, 'check-email');
  const link = await mail.link(EMAIL, '/account/verify?token=');
  expect(link.startsWith(`${base}/account/verify?token=`)).toBe(true);
  await page.goto(link);
  await shot(page, 'verify');
  await Promise.all([page.waitForNavigation(), page.click('#verify button')]);
  expect(page.url()).toContain('/account?welcome=1');
  expect(await page.textContent('#balance')).toBe('$5.00');
  const cookie = (await context.cookies()).find((c) => c.name === 'mg_account')!;
  expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict' });

  // A key, shown once.
  await page.goto(`${base}/account/keys`);
  await page.fill('#create-key input[name=name]', 'my laptop');
  await Promise.all([page.waitForNavigation(), page.click('#create-key button')]);
  const key = (await page.textContent('#new-key-value'))!.trim();
  expect(key).toMatch(/^mg_/);
  await shot(page, 'keys');
  await page.goto(`${base}/account/keys`);
  expect(await page.content()).not.toContain(key);
  expect(await page.textContent('#keys')).toContain('my laptop');

  // A webhook endpoint; its secret shown once.
  await page.goto(`${base}/account/webhooks`);
  await page.fill('#add-webhook input[name=url]', receiver.url('/holder-hook'));
  await Promise.all([page.waitForNavigation(), page.click('#add-webhook button')]);
  const secret = (await page.textContent('#secret-value'))!.trim();
  expect(secret).toMatch(/^whsec_/);
  await shot(page, 'webhooks');

  // A task through the API with that key; it shows with its thumbnail, and its event arrives signed.
  const account = { accountId: '', apiKey: key };
  const sub = await api.submit(account, 'image', { model: 'image-b-2.5', prompt: 'a lighthouse at dusk' });
  expect(sub.status).toBe(200);
  const taskId = String(sub.body.taskId);
  const settled = await api.untilSettled(account, 'image', taskId);
  expect(settled[settled.length - 1].status).toBe('completed');
  await page.goto(`${base}/account/tasks`);
  const thumb = page.locator(`#task-list img[alt="Result of task ${taskId}"]`);
  await thumb.waitFor();
  expect(await until('the thumbnail to load', async () => (await thumb.evaluate((img) => (img as unknown as { complete: boolean; naturalWidth: number }).complete && (img as unknown as { naturalWidth: number }).naturalWidth > 0)) || undefined)).toBe(true);
  await shot(page, 'tasks');
  await Promise.all([page.waitForNavigation(), page.click(`#task-list a[href="/account/tasks/${taskId}"]`)]);
  expect(await page.textContent('#task-status')).toBe('completed');
  expect(await page.textContent('#timeline')).toContain('Charged');
  await shot(page, 'task');
  const call = await until('the signed webhook', async () => receiver.calls.find((c) => c.path === '/holder-hook'));
  const event = new Webhook(secret).verify(call.body, headersOf(call)) as { type: string; data: { taskId: string } };
  expect(event).toMatchObject({ type: 'task.completed', data: { taskId } });
  await page.goto(`${base}/account/webhooks`);
  await Promise.all([page.waitForNavigation(), page.click('#webhooks a.deliveries')]);
  await until('the delivered row', async () => {
    await page.reload();
    return (await page.textContent('#deliveries').catch(() => null))?.includes('delivered');
  });
  await shot(page, 'deliveries');
  await Promise.all([page.waitForNavigation(), page.click('#deliveries a.open')]);
  expect(await page.textContent('#attempts')).toContain('204');
  await shot(page, 'delivery');

  // Top up by card: Checkout at the stand-in, then the signed event, sent twice, credits once.
  await page.route('https://checkout.stripe.test/**', (r) => r.fulfill({ status: 200, contentType: 'text/html', body: '<h1>Stripe Checkout (stand-in)</h1>' }));
  const balance = async () => ((await (await fetch(`${base}/api/balance`, { headers: { Authorization: `Bearer ${key}` } })).json()) as { balanceCents: number }).balanceCents;
  const before = await balance();
  await page.goto(`${base}/account/top-up`);
  await shot(page, 'top-up');
  await page.fill('#top-up input[name=amount]', '20');
  await Promise.all([page.waitForURL(/checkout\.stripe\.test/), page.click('#top-up button')]);
  const session = stripe.sessions[stripe.sessions.length - 1];
  const accountId = session.params.get('client_reference_id')!;
  expect(accountId).toMatch(/^acc_/);
  const paid = signedEvent('checkout.session.completed', {
    id: session.id, object: 'checkout.session', payment_status: 'paid', amount_total: 2000, currency: 'usd', client_reference_id: accountId, payment_intent: 'pi_e2e',
  });
  for (let i = 0; i < 2; i++) {
    const r = await fetch(`${base}/billing/stripe/webhook`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Stripe-Signature': paid.header }, body: paid.payload });
    expect(r.status).toBe(200);
  }
  await page.goto(`${base}/account/top-up?done=1`);
  expect(await page.textContent('#balance')).toBe(`$${((before + 2000) / 100).toFixed(2)}`);
  expect(await page.textContent('#top-ups')).toContain('pi_e2e');
  expect(await balance()).toBe(before + 2000);
  await page.goto(`${base}/account/ledger`);
  expect((await page.locator('#ledger tbody tr', { hasText: 'Stripe top-up pi_e2e' }).count())).toBe(1);
  await shot(page, 'ledger');
  await page.goto(`${base}/account/usage`);
  expect(await page.locator('#usage-chart svg rect').count()).toBeGreaterThan(0);
  await shot(page, 'usage');
  await page.goto(`${base}/account`);
  await shot(page, 'home');
  await page.goto(`${base}/account/forgot`);
  await shot(page, 'forgot');

  // The operator sees the holder and the top-up.
  const op = await fetch(`${base}/admin/operators`, {
    method: 'POST', headers: { Authorization: `Bearer ${stack.adminToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'olga', role: 'admin', password: 'operator password 123' }),
  });
  expect(op.status).toBe(201);
  await page.goto(`${base}/console/login?next=/console/holders`);
  await page.fill('input[name=name]', 'olga');
  await page.fill('input[name=password]', 'operator password 123');
  await submitAndWait(page);
  expect(await page.textContent('#holders')).toContain(EMAIL);
  await shot(page, 'console-holders');
  await page.goto(`${base}/console/top-ups`);
  expect(await page.textContent('#top-ups')).toContain('pi_e2e');
  await shot(page, 'console-top-ups');
  expect(errors).toEqual([]);
  await page.close();
});
