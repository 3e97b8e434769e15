// Audit trail: every change of who may do what (account limits, API keys, webhooks, operators,
// channels) made through the admin API or the console leaves one event with its actor, target,
// before/after and address, in the same transaction as the change; no secret ever reaches it; the
// console lists it to admins with filters and keyset pages.
import request from 'supertest';
import { createChannelHealth } from '@mediagen/channel-health';
import { listAuditEvents, sql } from '@mediagen/db';
import { startHarness, Harness } from './harness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness('audit_trail');
});
afterAll(async () => {
  await h?.close();
});

const events = async (f: { action?: string; accountId?: string; targetId?: string } = {}) => (await listAuditEvents(h.deps.db, { ...f, limit: 200 })).events;

/** A supertest agent signed in to the console as `name`, and the session's CSRF token. */
async function consoleAs(name: string, role: 'admin' | 'viewer'): Promise<{ agent: ReturnType<typeof request.agent>; csrf: string }> {
  const password = `a long password for ${name}`;
  expect((await request(h.app).post('/admin/operators').set(h.admin()).send({ name, role, password })).status).toBe(201);
  const agent = request.agent(h.app);
  const form = await agent.get('/console/login');
  const loginCsrf = /name="_csrf" value="([^"]+)"/.exec(form.text)![1];
  const signIn = await agent.post('/console/login').type('form').send({ _csrf: loginCsrf, name, password, next: '/console/accounts' });
  expect(signIn.status).toBe(303);
  const page = await agent.get('/console/accounts');
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1];
  return { agent, csrf };
}

test('admin API changes are audited as admin_token with before/after and the address, secrets left out', async () => {
  const acc = await request(h.app).post('/admin/accounts').set(h.admin()).send({ name: 'audited', balanceCents: 500 });
  const accountId = acc.body.id as string;
  expect((await request(h.app).patch(`/admin/accounts/${accountId}`).set(h.admin()).send({ maxConcurrentTasks: 3, rateLimitPerMinute: 60 })).status).toBe(200);
  const key = await request(h.app).post(`/admin/accounts/${accountId}/api-keys`).set(h.admin());
  expect((await request(h.app).delete(`/admin/api-keys/${key.body.id}`).set(h.admin())).status).toBe(204);
  expect((await request(h.app).delete(`/admin/api-keys/${key.body.id}`).set(h.admin())).status).toBe(204); // no second event
  const hook = await request(h.app).post(`/admin/accounts/${accountId}/webhooks`).set(h.admin()).send({ url: 'https://example.com/hook' });
  const rotated = await request(h.app).post(`/admin/webhooks/${hook.body.id}/rotate`).set(h.admin());
  expect((await request(h.app).delete(`/admin/webhooks/${hook.body.id}`).set(h.admin())).status).toBe(204);
  await request(h.app).post('/admin/operators').set(h.admin()).send({ name: 'olga', role: 'viewer', password: 'first password 123' });
  await request(h.app).post('/admin/operators').set(h.admin()).send({ name: 'olga', role: 'admin', password: 'second password 123' });
  expect((await request(h.app).delete('/admin/operators/olga').set(h.admin())).status).toBe(204);

  const forAccount = await events({ accountId });
  expect(forAccount.map((e) => e.action)).toEqual(['webhook.delete', 'webhook.rotate_secret', 'webhook.create', 'api_key.revoke', 'api_key.create', 'account.limits.update', 'account.create']);
  for (const e of forAccount) expect(e).toMatchObject({ actorType: 'admin_token', accountId, ip: expect.stringMatching(/127\.0\.0\.1/) });
  expect(forAccount.find((e) => e.action === 'account.limits.update')).toMatchObject({
    targetType: 'account',
    targetId: accountId,
    before: { maxConcurrentTasks: 20, rateLimitPerMinute: null },
    after: { maxConcurrentTasks: 3, rateLimitPerMinute: 60 },
  });
  expect(forAccount.find((e) => e.action === 'api_key.revoke')).toMatchObject({ targetId: key.body.id, after: { prefix: key.body.prefix, revoked: true } });
  expect(forAccount.find((e) => e.action === 'webhook.create')).toMatchObject({ targetId: hook.body.id, after: { url: 'https://example.com/hook' } });

  const olgaId = (await events({ action: 'operator.create' }))[0].targetId!;
  const ops = await events({ targetId: olgaId });
  expect(ops.map((e) => e.action)).toEqual(['operator.disable', 'operator.update', 'operator.create']);
  expect(ops[1]).toMatchObject({ before: { name: 'olga', role: 'viewer', disabled: false }, after: { name: 'olga', role: 'admin', passwordChanged: true } });

  const everything = JSON.stringify((await sql(h.deps.db, 'SELECT * FROM "AuditEvent"')).rows);
  for (const secret of [key.body.key, hook.body.secret, rotated.body.secret, 'first password 123', 'second password 123', 'scrypt$']) expect(everything).not.toContain(secret);
});

test('a change that fails leaves no event', async () => {
  const before = (await events()).length;
  expect((await request(h.app).patch('/admin/accounts/acc_missing').set(h.admin()).send({ maxConcurrentTasks: 3 })).status).toBe(404);
  expect((await request(h.app).post('/admin/webhooks/wh_missing/rotate').set(h.admin())).status).toBe(404);
  expect((await request(h.app).delete('/admin/operators/nobody').set(h.admin())).status).toBe(404);
  expect((await events()).length).toBe(before);
});

test('console changes are audited under the operator, and admins page through the trail with filters', async () => {
  const { agent, csrf } = await consoleAs('carla', 'admin');
  const acc = await request(h.app).post('/admin/accounts').set(h.admin()).send({ name: 'console target' });
  const accountId = acc.body.id as string;
  expect((await agent.post(`/console/accounts/${accountId}/limits`).type('form').send({ _csrf: csrf, maxConcurrentTasks: '7', rateLimitPerMinute: '' })).status).toBe(303);
  const issued = await agent.post(`/console/accounts/${accountId}/keys`).type('form').send({ _csrf: csrf });
  expect(issued.status).toBe(200);
  const keyId = (await events({ accountId, action: 'api_key.create' }))[0].targetId!;
  expect((await agent.post(`/console/keys/${keyId}/revoke`).type('form').send({ _csrf: csrf, accountId })).status).toBe(303);
  // A channel as a running worker reports it.
  await createChannelHealth(h.deps.redis, h.deps.config.REDIS_PREFIX, { failures: 5, windowMs: 60_000, cooldownMs: 30_000 })
    .register([{ id: 'ch_audit', models: [], tier: null, costOrder: 1, enabled: true, maxInFlight: 1 }]);
  expect((await agent.post('/console/channels/ch_audit/disable').type('form').send({ _csrf: csrf })).status).toBe(303);
  expect((await agent.post('/console/channels/ch_audit/enable').type('form').send({ _csrf: csrf })).status).toBe(303);

  const carla = (await events()).filter((e) => e.actorName === 'carla');
  // Her sign-in is in the trail too (written by the login route).
  expect(carla.map((e) => e.action)).toEqual(['channel.enable', 'channel.disable', 'api_key.revoke', 'api_key.create', 'account.limits.update', 'operator.login']);
  for (const e of carla) expect(e).toMatchObject({ actorType: 'operator', actorId: expect.stringMatching(/^op_/), ip: expect.stringMatching(/127\.0\.0\.1/) });
  expect(carla[4]).toMatchObject({ before: { maxConcurrentTasks: 20 }, after: { maxConcurrentTasks: 7 } });
  expect(carla[1]).toMatchObject({ targetType: 'channel', targetId: 'ch_audit', after: { disabled: true } });

  const page = await agent.get('/console/audit').query({ actor: 'operator', account: accountId });
  expect(page.status).toBe(200);
  const rows = page.text.split('<tr>').slice(2); // header row first
  expect(rows).toHaveLength(3);
  expect(rows[0]).toContain('api_key.revoke');
  expect(rows[2]).toContain('account.limits.update');
  expect(page.text).not.toContain('channel.disable'); // another target, no account

  // Pages of 50 follow each other without gaps or repeats.
  for (let i = 0; i < 60; i++) await request(h.app).patch(`/admin/accounts/${accountId}`).set(h.admin()).send({ maxConcurrentTasks: 100 + i });
  const first = await agent.get('/console/audit').query({ action: 'account.limits.update', account: accountId });
  expect(first.text.split('<tr>').length - 2).toBe(50);
  const older = /href="(\/console\/audit\?[^"]+)" id="audit-older"/.exec(first.text)![1].replace(/&amp;/g, '&');
  const second = await agent.get(older);
  expect(second.text.split('<tr>').length - 2).toBe(11); // 60 admin edits + carla's one
  expect(second.text).toContain('carla');
  expect(second.text).not.toContain('id="audit-older"');

  expect((await agent.get('/console/audit').query({ cursor: 'junk' })).status).toBe(400);
  expect((await agent.get('/console/audit').query({ actor: 'robot' })).status).toBe(422);
});

test('viewers do not see the trail', async () => {
  const { agent } = await consoleAs('vera', 'viewer');
  const res = await agent.get('/console/audit');
  expect(res.status).toBe(403);
  expect((await agent.get('/console/accounts')).text).not.toContain('href="/console/audit"');
});
