// The signed-in holder's pages on the real Postgres and Redis: tasks (filters, thumbnails, video
// player) and a task page that never shows channels, upstream ids or keys; the 30-day usage chart;
// webhooks (add with the URL policy, secret shown once, rotate, deliveries, re-send, remove, the
// callback secret); another account's tasks, endpoints and deliveries are 404; everything audited.
import request from 'supertest';
import { completeTask, failTask, findHolderByEmail, listAuditEvents, markProcessing, sql } from '@mediagen/db';
import { Harness, startHarness } from './harness';
import { browser, Mailbox, startMailbox } from './account-support';

let h: Harness;
let mail: Mailbox;

beforeAll(async () => {
  mail = await startMailbox();
  h = await startHarness('account_pages', { SMTP_URL: mail.url, SIGNUP_BALANCE_CENTS: '5000', INSTANT_WAIT_MS: '0' });
});
afterAll(async () => {
  await h.assertLedgerInvariant();
  await h.close();
  await mail.close();
});

async function signedUp(email: string) {
  const b = browser(h.app);
  await b.get('/account/signup');
  await b.post('/account/signup', { email, password: 'a long enough password' });
  const u = new URL(await mail.link(email, '/account/verify?token='));
  await b.get(`${u.pathname}${u.search}`);
  await b.post('/account/verify', { token: u.searchParams.get('token')! });
  await b.get('/account/keys');
  const key = /id="new-key-value">([^<]+)</.exec((await b.post('/account/keys', { name: 'k' })).text)![1];
  const accountId = (await findHolderByEmail(h.deps.db, email))!.accountId;
  return { b, auth: { Authorization: `Bearer ${key}` }, key, accountId };
}

const submit = async (auth: Record<string, string>, type: 'image' | 'video', body: object) => {
  const r = await request(h.app).post(`/api/${type}/generate`).set(auth).send(body);
  expect(r.status).toBe(200);
  return r.body.taskId as string;
};

describe('tasks and usage', () => {
  it('lists tasks with filters, thumbnails and a video player; the task page shows only what the holder may see', async () => {
    const { b, auth, key } = await signedUp('ada@example.com');
    const img = await submit(auth, 'image', { model: 'image-b-2.5', prompt: 'a <b>cat</b>' });
    const vid = await submit(auth, 'video', { model: 'video-a-h3', prompt: 'waves', duration: 2, resolution: '480p' });
    const bad = await submit(auth, 'image', { model: 'image-b-2.5', prompt: 'fails' });
    await completeTask(h.deps.db, img, ['http://127.0.0.1:1/files/results/img.png']);
    await completeTask(h.deps.db, vid, ['http://127.0.0.1:1/files/results/vid.mp4']);
    await markProcessing(h.deps.db, bad);
    await sql(h.deps.db, `INSERT INTO "TaskAttempt" ("id", "taskId", "attemptNo", "channelId", "upstreamId") VALUES ('att_x', $1, 1, 'secret-channel-7', 'upstream-id-123')`, [bad]);
    await failTask(h.deps.db, bad, { errorCode: 'generation_failed', errorMessage: 'The provider could not render it', retryable: true });

    const all = await b.get('/account/tasks');
    expect(all.status).toBe(200);
    // Result files may come from PUBLIC_BASE_URL's origin; scripts still only from this site.
    expect(all.headers['content-security-policy']).toContain("img-src 'self' data: http://127.0.0.1:1");
    expect(all.headers['content-security-policy']).toContain("media-src 'self' http://127.0.0.1:1");
    expect(all.headers['content-security-policy']).toContain("script-src 'self';");
    expect(all.text).toContain(`<img src="http://127.0.0.1:1/files/results/img.png"`);
    expect(all.text).toContain(`<video src="http://127.0.0.1:1/files/results/vid.mp4" controls`);
    const failed = await b.get('/account/tasks?status=failed');
    expect(failed.text).toContain(bad);
    expect(failed.text).not.toContain(img);
    expect((await b.get('/account/tasks?model=video-a-h3')).text).not.toContain(img);
    const today = new Date().toISOString().slice(0, 10);
    expect((await b.get(`/account/tasks?from=${today}&to=${today}`)).text).toContain(img);
    expect((await b.get('/account/tasks?from=2001-01-01&to=2001-01-02')).text).toContain('No tasks match');
    expect((await b.get('/account/tasks?status=bogus')).status).toBe(422);
    expect((await b.get('/account/tasks?from=yesterday')).status).toBe(422);

    const page = await b.get(`/account/tasks/${bad}`);
    expect(page.text).toContain('generation_failed');
    expect(page.text).toContain('The provider could not render it');
    expect(page.text).toMatch(/Refunded \$/);
    for (const hidden of ['secret-channel-7', 'upstream-id-123', key]) expect(page.text).not.toContain(hidden);
    expect((await b.get(`/account/tasks/${img}`)).text).toContain('a &lt;b&gt;cat&lt;/b&gt;');

    // The usage chart: one picture with a bar per model, the refunded task not counted.
    const usage = await b.get('/account/usage');
    expect(usage.text).toContain('<svg');
    expect(usage.text).toContain('image-b-2.5');
    expect(usage.text).toContain('video-a-h3');
    const other = await signedUp('bea@example.com');
    expect((await other.b.get(`/account/tasks/${img}`)).status).toBe(404);
    expect((await other.b.get('/account/tasks')).text).not.toContain(img);
  });
});

describe('webhooks', () => {
  it('adds an endpoint with its secret shown once, rotates, lists deliveries, re-sends and removes; other accounts get 404', async () => {
    const { b, accountId } = await signedUp('cy@example.com');
    await b.get('/account/webhooks');
    const refused = await b.post('/account/webhooks', { url: 'ftp://example.com/x' });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('https URL');
    const added = await b.post('/account/webhooks', { url: 'http://127.0.0.1:9/hook' });
    expect(added.status).toBe(200);
    const secret = /id="secret-value">([^<]+)</.exec(added.text)![1];
    expect(secret).toMatch(/^whsec_/);
    const list = await b.get('/account/webhooks');
    expect(list.text).toContain('http://127.0.0.1:9/hook');
    expect(list.text).not.toContain(secret);
    const id = /action="\/account\/webhooks\/(wh_[^/]+)\/rotate"/.exec(list.text)![1];
    const rotated = await b.post(`/account/webhooks/${id}/rotate`);
    const secret2 = /id="secret-value">([^<]+)</.exec(rotated.text)![1];
    expect(secret2).not.toBe(secret);
    expect(rotated.text).toContain('previous secret keeps signing');

    // The per-task callback secret: shown once on rotate.
    const cb = /action="\/account\/webhooks\/(wh_[^/]+)\/rotate" class="inline" id="rotate-callback"/.exec(list.text)![1];
    const cbSecret = /id="secret-value">([^<]+)</.exec((await b.post(`/account/webhooks/${cb}/rotate`)).text)![1];
    expect(cbSecret).toMatch(/^whsec_/);

    // A delivery exists once a task settles; the holder sees it, its attempts, and re-sends it.
    const task = await submit((await signedUpKey(b)).auth, 'image', { model: 'image-b-2.5', prompt: 'p' });
    await completeTask(h.deps.db, task, ['http://127.0.0.1:1/files/x.png']);
    await sql(h.deps.db, `INSERT INTO "WebhookDelivery" ("id", "endpointId", "accountId", "taskId", "target", "url", "eventType", "body", "status", "attemptCount")
      VALUES ('whd_1', $1, $2, $3, 'endpoint', 'http://127.0.0.1:9/hook', 'task.completed', '{"type":"task.completed"}', 'failed', 3)`, [id, accountId, task]);
    expect((await b.get(`/account/webhooks/${id}`)).text).toContain('whd_1');
    expect((await b.get('/account/deliveries/whd_1')).text).toContain('task.completed');
    expect((await b.post('/account/deliveries/whd_1/resend')).status).toBe(303);
    expect((await h.deps.webhookQueue.getJob('whd_1'))).toBeTruthy();

    const other = await signedUp('dee@example.com');
    await other.b.get('/account/webhooks');
    expect((await other.b.get(`/account/webhooks/${id}`)).status).toBe(404);
    expect((await other.b.get('/account/deliveries/whd_1')).status).toBe(404);
    expect((await other.b.post('/account/deliveries/whd_1/resend')).status).toBe(404);
    expect((await other.b.post(`/account/webhooks/${id}/rotate`)).status).toBe(404);
    expect((await other.b.post(`/account/webhooks/${id}/delete`)).status).toBe(404);

    expect((await b.post(`/account/webhooks/${id}/delete`)).status).toBe(303);
    expect((await b.get('/account/webhooks')).text).not.toContain('http://127.0.0.1:9/hook');
    const { events } = await listAuditEvents(h.deps.db, { accountId, limit: 50 });
    const actions = events.map((e) => e.action);
    for (const a of ['webhook.create', 'webhook.rotate_secret', 'webhook.delivery.resend', 'webhook.delete', 'holder.verify_email', 'holder.signup', 'api_key.create']) expect(actions).toContain(a);
    expect(JSON.stringify(events)).not.toContain(secret);
  });
});

/** The key made at sign-up is shown once: make another for this browser. */
async function signedUpKey(b: ReturnType<typeof browser>) {
  await b.get('/account/keys');
  const key = /id="new-key-value">([^<]+)</.exec((await b.post('/account/keys', { name: 'more' })).text)![1];
  return { auth: { Authorization: `Bearer ${key}` } };
}
