// Signed webhooks to clients through the real processes: account endpoints and
// per-task callback_url, verified with the `standardwebhooks` library as a client would; a receiver
// that is down for a while still gets every event once, under the same webhook-id across retries;
// secret rotation (both secrets verify during the overlap); admin deliveries, attempts and resend;
// and the outbox: a task settled by a process that died before creating its deliveries still
// gets its event (the reconciler creates it).
import { Webhook } from 'standardwebhooks';
import { completeTask } from '@mediagen/db';
import { Account, apiClient } from './support/api';
import type { Stack } from './support/stack';
import { e2eSuite } from './support/suite';
import { headersOf, ReceivedCall, Receiver, startReceiver } from './support/webhook-receiver';
import { waitFor } from './support/wait';

jest.setTimeout(90_000);

let stack: Stack;
let api: ReturnType<typeof apiClient>;
let receiver: Receiver;

e2eSuite(
  'webhooks',
  {
    stack: async () => {
      receiver = await startReceiver();
      // Fast backoff so the whole retry story fits in seconds (the defaults span about a day). The
      // receiver runs in the jest process: on a loaded machine it may take seconds to answer, which
      // must not count as a failed attempt (the tests count attempts exactly).
      return { env: { WEBHOOK_RETRY_BASE_MS: '300', WEBHOOK_RETRY_MAX_DELAY_MS: '1000', WEBHOOK_RETRY_WINDOW_MS: '60000', WEBHOOK_TIMEOUT_MS: '10000' } };
    },
  },
  (s) => ({ stack, api } = s),
);
afterAll(async () => receiver?.close());

const image = (prompt: string, extra: Record<string, unknown> = {}) => ({ model: 'image-b-2.5', prompt, ...extra });
const failingVideo = { model: 'video-a-h3', prompt: 'a storm at sea #sim:fail', duration: 2, resolution: '480p' };

async function newAccount(): Promise<Account> {
  return api.newAccount(10_000, 50);
}

async function addWebhook(account: Account, path: string, events?: string[]) {
  const res = await api.admin('POST', `/accounts/${account.accountId}/webhooks`, { url: receiver.url(path), ...(events ? { events } : {}) });
  expect(res.status).toBe(201);
  expect(res.body).toEqual({ id: expect.stringMatching(/^wh_/), url: receiver.url(path), events: events ?? ['task.completed', 'task.failed'], secret: expect.stringMatching(/^whsec_/), createdAt: expect.any(String) });
  return res.body as { id: string; secret: string };
}

async function submit(account: Account, kind: 'video' | 'image', body: Record<string, unknown>): Promise<string> {
  const res = await api.submit(account, kind, body);
  if (res.status !== 200) throw new Error(`submit: ${res.status} ${JSON.stringify(res.body)}`);
  return String(res.body.taskId);
}

/** The accepted call carrying `taskId`'s event at `path`, once it arrived. */
async function eventFor(path: string, taskId: string, timeoutMs = 30_000): Promise<ReceivedCall> {
  let found: ReceivedCall | undefined;
  await waitFor(() => {
    found = receiver.calls.find((c) => c.path === path && c.status < 300 && (JSON.parse(c.body) as { data: { taskId: string } }).data.taskId === taskId);
    return !!found;
  }, timeoutMs, `event of ${taskId} at ${path}`);
  return found!;
}

const verify = (secret: string, c: ReceivedCall) => new Webhook(secret).verify(c.body, headersOf(c)) as { type: string; timestamp: string; data: Record<string, unknown> };

describe('account webhooks', () => {
  it('deliver signed task.completed and task.failed events carrying the poll body, taskId, model and effectivePrompt', async () => {
    const account = await newAccount();
    const hook = await addWebhook(account, '/a');
    const done = await submit(account, 'image', image('a fox in snow'));
    const failed = await submit(account, 'video', failingVideo);
    const [ok, bad] = [await eventFor('/a', done), await eventFor('/a', failed)];

    const okEvent = verify(hook.secret, ok);
    const okPoll = (await api.poll(account, 'image', done)).body;
    expect(okEvent).toEqual({ type: 'task.completed', timestamp: expect.stringMatching(/Z$/), data: { ...okPoll, taskId: done, model: 'image-b-2.5', effectivePrompt: 'a fox in snow' } });
    const badEvent = verify(hook.secret, bad);
    const badPoll = (await api.poll(account, 'video', failed)).body;
    expect(badEvent).toEqual({ type: 'task.failed', timestamp: expect.any(String), data: { ...badPoll, taskId: failed, model: 'video-a-h3', effectivePrompt: failingVideo.prompt } });
    expect(badEvent.data).toMatchObject({ status: 'failed', errorCode: 'generation_failed', retryable: true });
    // Another secret does not verify: the signature is real.
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(ok.body, headersOf(ok))).toThrow();

    // The row says delivered just after the receiver answered.
    await waitFor(async () => {
      const l = await api.admin('GET', `/webhooks/${hook.id}/deliveries`);
      return (l.body.data as { status: string }[]).every((d) => d.status === 'delivered');
    }, 10_000, 'both deliveries recorded as delivered');
    const list = await api.admin('GET', `/webhooks/${hook.id}/deliveries`);
    expect(list.status).toBe(200);
    expect((list.body.data as { taskId: string; status: string; id: string }[]).map((d) => [d.taskId, d.status]).sort()).toEqual([[done, 'delivered'], [failed, 'delivered']].sort());
    const one = await api.admin('GET', `/deliveries/${ok.id}`);
    expect(one.body).toMatchObject({ id: ok.id, status: 'delivered', eventType: 'task.completed', attempts: [{ attemptNo: 1, statusCode: 204, error: null }] });
    expect(one.body.body).toEqual(okEvent);
  });

  it('only send the event types an endpoint subscribed to; a deleted endpoint gets nothing more', async () => {
    const account = await newAccount();
    const onlyFailed = await addWebhook(account, '/only-failed', ['task.failed']);
    const gone = await addWebhook(account, '/gone');
    expect((await api.admin('DELETE', `/webhooks/${gone.id}`)).status).toBe(204);
    expect((await api.admin('DELETE', `/webhooks/${gone.id}`)).status).toBe(404);
    const listed = await api.admin('GET', `/accounts/${account.accountId}/webhooks`);
    expect((listed.body.webhooks as { id: string; url: string | null }[]).map((w) => w.id)).toContain(onlyFailed.id);
    expect((listed.body.webhooks as { id: string }[]).map((w) => w.id)).not.toContain(gone.id);
    expect(JSON.stringify(listed.body)).not.toContain('whsec_');
    const done = await submit(account, 'image', image('a quiet harbour'));
    const failed = await submit(account, 'video', failingVideo);
    await eventFor('/only-failed', failed);
    await api.untilSettled(account, 'image', done);
    // The completed task's outbox step has run (every delivery it will ever have exists) and made
    // none: nothing can reach /only-failed or /gone later, so no waiting for what must not come.
    await waitFor(async () => (await stack.db.task.findUniqueOrThrow({ where: { id: done } })).eventsEmittedAt !== null, 15_000, 'the outbox step of the completed task');
    expect(await stack.db.webhookDelivery.count({ where: { taskId: done } })).toBe(0);
    expect(receiver.calls.filter((c) => c.path === '/only-failed').map((c) => JSON.parse(c.body).data.taskId)).toEqual([failed]);
    expect(receiver.calls.filter((c) => c.path === '/gone')).toEqual([]);
  });
});

describe('callback_url', () => {
  it('is signed with the account\'s callback signing key, whose secret an admin obtains by rotating it', async () => {
    const account = await newAccount();
    const keys = await api.admin('GET', `/accounts/${account.accountId}/webhooks`);
    const signing = (keys.body.webhooks as { id: string; url: string | null }[]).find((w) => w.url === null)!;
    expect(signing).toBeDefined();
    const rotated = await api.admin('POST', `/webhooks/${signing.id}/rotate`);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    const taskId = await submit(account, 'image', image('a red kite', { callback_url: receiver.url('/cb') }));
    const call = await eventFor('/cb', taskId);
    expect(verify(String(rotated.body.secret), call)).toMatchObject({ type: 'task.completed', data: { taskId, status: 'completed' } });

    const bad = await api.submit(account, 'image', image('x', { callback_url: 'ftp://example.com/hook' }));
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'validation_error', details: [{ path: 'callback_url', message: expect.any(String) }] });
  });
});

describe('delivery', () => {
  it('a receiver down for a while then up gets every event exactly once, with the same webhook-id on every retry', async () => {
    const account = await newAccount();
    const hook = await addWebhook(account, '/flaky');
    receiver.setDown('/flaky', true);
    const tasks = [await submit(account, 'image', image('one')), await submit(account, 'image', image('two')), await submit(account, 'video', failingVideo)];
    // Every event is refused at least twice while the receiver is down.
    await waitFor(() => {
      const refused = receiver.calls.filter((c) => c.path === '/flaky' && c.status === 503);
      return tasks.every((t) => refused.filter((c) => JSON.parse(c.body).data.taskId === t).length >= 2);
    }, 30_000, 'two refused attempts per event');
    receiver.setDown('/flaky', false);
    for (const t of tasks) await eventFor('/flaky', t);
    // A duplicate would be a retry scheduled before the success: no retry waits longer than
    // WEBHOOK_RETRY_MAX_DELAY_MS (1 s here), so 2.5 s is long enough for one to show up. This is
    // the one wait for something that must not happen; there is no event that says "no retry left".
    await new Promise((r) => setTimeout(r, 2_500));

    const calls = receiver.calls.filter((c) => c.path === '/flaky');
    const accepted = receiver.accepted('/flaky');
    expect(accepted.size).toBe(3);
    for (const [id, got] of accepted) {
      expect(got).toHaveLength(1);
      await waitFor(async () => (await api.admin('GET', `/deliveries/${id}`)).body.status === 'delivered', 10_000, 'recorded as delivered');
      const all = calls.filter((c) => c.id === id);
      expect(all.length).toBeGreaterThanOrEqual(3);
      // One event, one id, the same bytes every time; the timestamp is the attempt's.
      expect(new Set(all.map((c) => c.body)).size).toBe(1);
      expect(verify(hook.secret, got[0]).data.taskId).toEqual(JSON.parse(all[0].body).data.taskId);
      const d = await api.admin('GET', `/deliveries/${id}`);
      expect(d.body.status).toBe('delivered');
      const attempts = d.body.attempts as { statusCode: number | null; error: string | null }[];
      expect(attempts.at(-1)!.statusCode).toBe(204);
      // Earlier ones: refused by the receiver, or not sent while its destination backed off as a whole.
      for (const a of attempts.slice(0, -1)) expect(a.statusCode === 503 || (a.statusCode === null && /^not sent: the destination is backing off/.test(a.error ?? ''))).toBe(true);
    }
    expect([...accepted.values()].map((g) => JSON.parse(g[0].body).data.taskId).sort()).toEqual([...tasks].sort());
  });

  it('resend sends the same event again under the same webhook-id', async () => {
    const account = await newAccount();
    await addWebhook(account, '/resend');
    const taskId = await submit(account, 'image', image('a snowy owl'));
    const first = await eventFor('/resend', taskId);
    const res = await api.admin('POST', `/deliveries/${first.id}/resend`);
    expect(res.status).toBe(202);
    await waitFor(() => (receiver.accepted('/resend').get(first.id)?.length ?? 0) === 2, 15_000, 'the resent event');
    const [a, b] = receiver.accepted('/resend').get(first.id)!;
    expect(b.body).toBe(a.body);
    await waitFor(async () => (await api.admin('GET', `/deliveries/${first.id}`)).body.status === 'delivered', 10_000, 'the resend recorded');
    expect((await api.admin('GET', `/deliveries/${first.id}`)).body).toMatchObject({ status: 'delivered', attemptCount: 2 });
    expect((await api.admin('POST', '/deliveries/msg_nope/resend')).status).toBe(404);
  });

  it('after a rotation both the old and the new secret verify (two signatures), for the overlap', async () => {
    const account = await newAccount();
    const hook = await addWebhook(account, '/rotate');
    const rotated = await api.admin('POST', `/webhooks/${hook.id}/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ id: hook.id, secret: expect.stringMatching(/^whsec_/), previousSecretExpiresAt: expect.any(String) });
    expect(rotated.body.secret).not.toBe(hook.secret);
    const hours = (Date.parse(String(rotated.body.previousSecretExpiresAt)) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    const taskId = await submit(account, 'image', image('a paper crane'));
    const call = await eventFor('/rotate', taskId);
    expect(call.signature.split(' ')).toHaveLength(2);
    expect(verify(hook.secret, call).data.taskId).toBe(taskId);
    expect(verify(String(rotated.body.secret), call).data.taskId).toBe(taskId);
  });
});

describe('outbox', () => {
  it('a task settled without its deliveries (the settler died after the commit) still gets its event', async () => {
    const account = await newAccount();
    const hook = await addWebhook(account, '/outbox');
    const taskId = await submit(account, 'video', { model: 'video-a-h3', prompt: 'never ends #sim:hang', duration: 2, resolution: '480p' });
    await waitFor(async () => (await api.poll(account, 'video', taskId)).body.status === 'processing', 15_000, 'processing');
    // Settle it the way a process that then died would have: the commit only, no outbox step.
    expect(await completeTask(stack.db, taskId, ['https://cdn.example/x.mp4'])).toBe(true);
    const call = await eventFor('/outbox', taskId);
    expect(verify(hook.secret, call)).toMatchObject({ type: 'task.completed', data: { taskId, status: 'completed', resultUrls: ['https://cdn.example/x.mp4'] } });
  });
});
