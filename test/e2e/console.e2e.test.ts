// The operators' console in a real browser (headless Chromium): sign in, create an account, top
// it up, create a key, submit a task with it over the API, find the task and read its timeline,
// revoke the key (the next API call answers 401), open Bull Board, sign out and be refused. Also:
// customer text with <script> and <img onerror> is shown as text and never runs, the CSP, viewers
// read only (Bull Board read-only too), CSRF, the login limit, METRICS_TOKEN, Idempotency-Key.
import { randomBytes } from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';
import { Account, apiClient } from './support/api';
import type { Stack } from './support/stack';
import { e2eSuite } from './support/suite';
import { browserMissing, launchChromium } from './support/browser';
import { Receiver, startReceiver } from './support/webhook-receiver';
import { eventually } from './support/wait';

jest.setTimeout(90_000);

const METRICS_TOKEN = `metrics-${randomBytes(12).toString('hex')}`;
const XSS = `a cat <script>window.__xss='script'</script><img src=x onerror="window.__xss='img'"> "quoted" & more`;
const ADMIN = { name: 'alice', password: 'correct horse battery staple' };
const VIEWER = { name: 'victor', password: 'viewer password 1234' };

let stack: Stack;
let api: ReturnType<typeof apiClient>;
let context: BrowserContext;
let closeBrowser: (() => Promise<void>) | undefined;
let receiver: Receiver | undefined;
const skip = browserMissing();

e2eSuite('console', { stack: { env: { METRICS_TOKEN } } }, (s) => ({ stack, api } = s));

const operator = (o: { name: string; password: string }, role: string) =>
  fetch(`${stack.gatewayUrl}/admin/operators`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${stack.adminToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ ...o, role }),
  });

beforeAll(async () => {
  expect((await operator(ADMIN, 'admin')).status).toBe(201);
  expect((await operator(VIEWER, 'viewer')).status).toBe(201);
  if (skip) return;
  ({ context, close: closeBrowser } = await launchChromium());
}, 60_000);
afterAll(async () => {
  await closeBrowser?.();
  await receiver?.close();
});

/** `eventually` with this file's generous default: a browser on a loaded machine is slow. */
const until = <T>(what: string, f: () => Promise<T | undefined | false>, ms = 30_000): Promise<T> => eventually(what, f, ms);

async function signIn(page: Page, who: { name: string; password: string }, next = '/console/accounts'): Promise<void> {
  await context.clearCookies(); // one browser profile for the file: each test signs in afresh
  await page.goto(`${stack.gatewayUrl}${next}`);
  await page.waitForURL(/\/console\/login/);
  await page.fill('input[name=name]', who.name);
  await page.fill('input[name=password]', who.password);
  await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
}

const browserIt = skip ? it.skip : it;

describe('the console in a browser', () => {
  browserIt('an admin runs an account end to end, and text from customers never runs as code', async () => {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('dialog', (d) => void d.accept());
    await signIn(page, ADMIN);
    await page.waitForSelector('h1:text("Accounts")');
    const headers = (await page.goto(`${stack.gatewayUrl}/console/accounts`))!.headers();
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(headers['content-security-policy']).not.toContain('unsafe-inline');
    const cookie = (await context.cookies()).find((c) => c.name === 'mg_console')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict' });

    // Create an account with an opening balance, then top it up with a reason.
    await page.fill('#create-account input[name=name]', 'Acme <b>bold</b>');
    await page.fill('#create-account input[name=balance]', '10');
    await Promise.all([page.waitForNavigation(), page.click('#create-account button')]);
    const accountId = (await page.textContent('#account-id'))!;
    expect(accountId).toMatch(/^acc_/);
    expect(await page.textContent('h1')).toBe('Acme <b>bold</b>'); // shown as text
    expect(await page.textContent('#balance')).toBe('$10.00');
    await page.fill('#top-up input[name=amount]', '15');
    await page.fill('#top-up input[name=reason]', 'invoice 7');
    await Promise.all([page.waitForNavigation(), page.click('#top-up button')]);
    expect(await page.textContent('#balance')).toBe('$25.00');
    const ledger = (await page.textContent('#ledger'))!;
    expect(ledger).toContain('invoice 7');
    expect(ledger).toContain('operator:alice');

    // A key, shown once.
    await Promise.all([page.waitForNavigation(), page.click('#create-key button')]);
    const key = (await page.textContent('#new-key-value'))!.trim();
    expect(key).toMatch(/^mg_/);
    await page.goto(`${stack.gatewayUrl}/console/accounts/${accountId}`);
    expect(await page.content()).not.toContain(key);
    expect(await page.textContent('#keys')).toContain(key.slice(0, 9));

    // A task over the API with that key, its prompt carrying markup.
    const account: Account = { accountId, apiKey: key };
    const sub = await api.submit(account, 'image', { model: 'image-b-2.5', prompt: XSS });
    expect(sub.status).toBeLessThan(300);
    const taskId = String(sub.body.taskId);
    await api.untilSettled(account, 'image', taskId);

    // Find it by account and read its timeline.
    await page.goto(`${stack.gatewayUrl}/console/tasks`);
    await page.fill('#task-filters input[name=account]', accountId);
    await Promise.all([page.waitForNavigation(), page.click('#task-filters button')]);
    await Promise.all([page.waitForNavigation(), page.click(`#task-list a[href="/console/tasks/${taskId}"]`)]);
    const timeline = (await page.textContent('#timeline'))!;
    expect(timeline).toContain('Submitted');
    expect(timeline).toContain('Charged');
    expect(timeline).toMatch(/Attempt 1 on \S+: \w+/);
    expect(timeline).toMatch(/Completed with 1 file|Failed: /);
    expect(await page.textContent('#params')).toContain(`<script>window.__xss='script'</script>`);
    expect(await page.evaluate('typeof window.__xss')).toBe('undefined');
    expect(await page.locator('img[src=x]').count()).toBe(0);

    // Revoke: the very next API call with the key answers 401.
    await page.goto(`${stack.gatewayUrl}/console/accounts/${accountId}`);
    await Promise.all([page.waitForNavigation(), page.click('#keys button.revoke')]);
    expect(await page.textContent('#keys')).toContain('revoked');
    expect((await api.poll(account, 'image', taskId)).status).toBe(401);

    // Bull Board opens with the session and lists every queue.
    await page.goto(`${stack.gatewayUrl}/admin/queues/`);
    for (const q of ['tasks', 'maintenance', 'webhooks']) await page.waitForSelector(`text=${q}`, { timeout: 15_000 });

    // Sign out: pages and Bull Board refuse the browser again.
    await page.goto(`${stack.gatewayUrl}/console/accounts`);
    await Promise.all([page.waitForNavigation(), page.click('#logout')]);
    await page.goto(`${stack.gatewayUrl}/console/accounts`);
    expect(page.url()).toContain('/console/login');
    await page.goto(`${stack.gatewayUrl}/admin/queues/`);
    expect(page.url()).toContain('/console/login');
    expect(errors).toEqual([]);
    await page.close();
  });

  browserIt('a viewer reads but cannot write, and Bull Board is read-only for them', async () => {
    const page = await context.newPage();
    await signIn(page, VIEWER);
    expect(await page.locator('#create-account').count()).toBe(0);
    // A forged write (right CSRF token, viewer role) is refused.
    const csrf = await page.getAttribute('#logout', 'id').then(() => page.inputValue('header input[name=_csrf]'));
    const res = await page.request.post(`${stack.gatewayUrl}/console/accounts`, { form: { _csrf: csrf, name: 'sneaky' } });
    expect(res.status()).toBe(403);
    const queues = await page.request.get(`${stack.gatewayUrl}/admin/queues/api/queues?activeQueue=tasks&status=latest&page=1&jobsPerPage=10`);
    expect(queues.status()).toBe(200);
    const body = (await queues.json()) as { queues: { readOnlyMode: boolean }[] };
    expect(body.queues.length).toBeGreaterThanOrEqual(3);
    expect(body.queues.every((q) => q.readOnlyMode)).toBe(true);
    await page.close();
  });

  browserIt('webhook deliveries: an admin reads a delivery and re-sends it; a viewer cannot; no CSRF, no re-send', async () => {
    receiver = await startReceiver();
    const account = await api.newAccount(10_000, 5);
    const hook = await api.admin('POST', `/accounts/${account.accountId}/webhooks`, { url: receiver.url('/console-hook') });
    expect(hook.status).toBe(201);
    const hookId = String(hook.body.id);
    const sub = await api.submit(account, 'image', { model: 'image-b-2.5', prompt: 'a lighthouse' });
    expect(sub.status).toBeLessThan(300);
    const taskId = String(sub.body.taskId);
    await api.untilSettled(account, 'image', taskId);
    await until('the first delivery', async () => receiver!.calls.filter((c) => c.path === '/console-hook').length === 1);

    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await signIn(page, ADMIN, `/console/accounts/${account.accountId}`);
    const endpoints = (await page.textContent('#webhooks'))!;
    expect(endpoints).toContain(receiver.url('/console-hook'));
    expect(endpoints).toContain('task.completed, task.failed');
    expect(await page.content()).not.toContain(String(hook.body.secret)); // never the secret
    await Promise.all([page.waitForNavigation(), page.click(`#webhooks a[href="/console/webhooks/${hookId}/deliveries"]`)]);
    const row = await until('the delivered row', async () => {
      await page.reload();
      const text = await page.textContent('#deliveries').catch(() => null);
      return text?.includes('delivered') ? text : undefined;
    });
    expect(row).toContain(taskId);
    expect(row).toMatch(/task\.(completed|failed)/);
    expect(await page.locator(`#deliveries a[href="/console/tasks/${taskId}"]`).count()).toBe(1);
    await Promise.all([page.waitForNavigation(), page.click('#deliveries a.open')]);
    const deliveryUrl = page.url();
    expect(deliveryUrl).toMatch(/\/console\/deliveries\/[^/]+$/);
    expect(await page.locator('#attempts tbody tr').count()).toBe(1);
    expect(await page.textContent('#attempts')).toContain('204');

    // Re-send: back on the delivery page, and a second call reaches the receiver.
    await Promise.all([page.waitForNavigation(), page.click('#resend button')]);
    expect(page.url()).toBe(deliveryUrl);
    await until('the re-sent delivery', async () => receiver!.calls.filter((c) => c.path === '/console-hook').length === 2);
    await until('the second attempt on the page', async () => {
      await page.reload();
      return (await page.locator('#attempts tbody tr').count()) === 2;
    });

    // No CSRF token: refused, nothing re-sent.
    const resendPath = `${new URL(deliveryUrl).pathname}/resend`;
    const forged = await page.request.post(`${stack.gatewayUrl}${resendPath}`, { form: {} });
    expect(forged.status()).toBe(403);
    expect(errors).toEqual([]);
    await page.close();

    // A viewer reads the delivery but has no Re-send, and a write with their token is refused.
    const viewer = await context.newPage();
    await signIn(viewer, VIEWER, new URL(deliveryUrl).pathname);
    expect(await viewer.locator('#attempts tbody tr').count()).toBe(2);
    expect(await viewer.locator('#resend').count()).toBe(0);
    const csrf = await viewer.inputValue('header input[name=_csrf]');
    expect((await viewer.request.post(`${stack.gatewayUrl}${resendPath}`, { form: { _csrf: csrf } })).status()).toBe(403);
    // Refused before anything changed: a re-send resets the delivery to pending and queues it, so a
    // delivery still delivered with its two attempts is one no third call can come from.
    const deliveryId = new URL(deliveryUrl).pathname.split('/').pop()!;
    expect(await stack.db.webhookDelivery.findUniqueOrThrow({ where: { id: deliveryId } })).toMatchObject({ status: 'delivered' });
    expect(await stack.db.webhookDeliveryAttempt.count({ where: { deliveryId } })).toBe(2);
    expect(receiver.calls.filter((c) => c.path === '/console-hook')).toHaveLength(2);
    await viewer.close();
  });

  browserIt('a write without the CSRF token is refused', async () => {
    const page = await context.newPage();
    await signIn(page, ADMIN);
    const res = await page.request.post(`${stack.gatewayUrl}/console/accounts`, { form: { name: 'no token' } });
    expect(res.status()).toBe(403);
    expect(await res.text()).toContain('Reload the page');
    await page.close();
  });
});

describe('sign-in, tokens and admin writes without a browser', () => {
  async function tryLogin(name: string, password: string): Promise<number> {
    const form = await fetch(`${stack.gatewayUrl}/console/login`);
    const cookie = form.headers.get('set-cookie')!.split(';')[0];
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1];
    const res = await fetch(`${stack.gatewayUrl}/console/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { Cookie: cookie, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, name, password }).toString(),
    });
    return res.status;
  }

  it('limits failed sign-ins per name', async () => {
    await operator({ name: 'mallory-target', password: 'the real password 42' }, 'viewer');
    for (let i = 0; i < 10; i++) expect(await tryLogin('mallory-target', `guess-${i}`)).toBe(401);
    expect(await tryLogin('mallory-target', 'the real password 42')).toBe(429);
  });

  it('a page without a session sends the browser to sign in; Bull Board answers scripts 401 without the token', async () => {
    const res = await fetch(`${stack.gatewayUrl}/console/accounts`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/console/login?next=%2Fconsole%2Faccounts');
    expect((await fetch(`${stack.gatewayUrl}/admin/queues/api/queues`, { headers: { Accept: 'application/json' } })).status).toBe(401);
    expect((await fetch(`${stack.gatewayUrl}/admin/queues/api/queues`, { headers: { Authorization: `Bearer ${stack.adminToken}` } })).status).toBe(200);
  });

  it('METRICS_TOKEN reads /metrics and nothing else', async () => {
    const auth = { Authorization: `Bearer ${METRICS_TOKEN}` };
    expect((await fetch(`${stack.gatewayUrl}/metrics`, { headers: auth })).status).toBe(200);
    expect((await fetch(`${stack.gatewayUrl}/admin/channels`, { headers: auth })).status).toBe(401);
    expect((await fetch(`${stack.gatewayUrl}/metrics`)).status).toBe(401);
  });

  it('a retried top-up with the same Idempotency-Key credits once, and the ledger names the actor', async () => {
    const acc = await api.admin('POST', '/accounts', { name: 'idem', balanceCents: 100 });
    const id = String(acc.body.id);
    const topUp = () =>
      fetch(`${stack.gatewayUrl}/admin/accounts/${id}/credits`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${stack.adminToken}`, 'Content-Type': 'application/json', 'Idempotency-Key': `topup-${id}` },
        body: JSON.stringify({ amountCents: 500, reason: 'retry me' }),
      });
    const [a, b] = [await topUp(), await topUp()];
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect((await api.admin('GET', `/accounts/${id}`)).body.balanceCents).toBe(600);
    const ledger = await api.admin('GET', `/accounts/${id}/ledger`);
    expect((ledger.body.entries as { actor: string; reason: string }[]).map((e) => [e.reason, e.actor])).toEqual([
      ['retry me', 'admin-token'],
      ['initial balance', 'admin-token'],
    ]);
  });
});
