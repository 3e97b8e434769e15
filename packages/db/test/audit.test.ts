// The audit trail's data layer. Events commit or roll back with the change they
// describe, never hold secrets, list newest first with filters and cursor paging, and retention
// deletes old rows in small batches.
import { createDb, Db, deleteAuditEventsBefore, InvalidAuditCursorError, listAuditEvents, recordAudit, recordAuditIn, sql, sqlTransaction } from '../src';
import { createTestSchema, TestSchema } from '../src/test-schema';

let schema: TestSchema;
let db: Db;

beforeAll(async () => {
  schema = await createTestSchema('audit');
  db = createDb(schema.url);
});

afterAll(async () => {
  await db?.$disconnect();
  await schema?.drop();
});

beforeEach(async () => {
  await sql(db, 'DELETE FROM "AuditEvent"');
});

test('an event written in a transaction that rolls back leaves no trace; a committed one is listed whole', async () => {
  await expect(
    db.$transaction(async (tx) => {
      await recordAudit(tx, { actor: { type: 'operator', id: 'op_1', name: 'ann' }, action: 'channel.disable', targetType: 'channel', targetId: 'ch_a' });
      throw new Error('the change failed');
    }),
  ).rejects.toThrow('the change failed');
  await expect(
    sqlTransaction(db, async (c) => {
      await recordAuditIn(c, { actor: { type: 'system' }, action: 'channel.enable', targetType: 'channel', targetId: 'ch_a' });
      throw new Error('the change failed');
    }),
  ).rejects.toThrow('the change failed');
  expect((await listAuditEvents(db, { limit: 10 })).events).toEqual([]);

  await db.$transaction(async (tx) => {
    await recordAudit(tx, {
      actor: { type: 'operator', id: 'op_1', name: 'ann' },
      action: 'account.limits.update',
      targetType: 'account',
      targetId: 'acc_1',
      accountId: 'acc_1',
      before: { maxConcurrentTasks: 20 },
      after: { maxConcurrentTasks: 5 },
      ip: '203.0.113.9',
    });
  });
  const { events, nextCursor } = await listAuditEvents(db, { limit: 10 });
  expect(nextCursor).toBeNull();
  expect(events).toEqual([
    {
      id: expect.any(String),
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      actorType: 'operator',
      actorId: 'op_1',
      actorName: 'ann',
      action: 'account.limits.update',
      targetType: 'account',
      targetId: 'acc_1',
      accountId: 'acc_1',
      before: { maxConcurrentTasks: 20 },
      after: { maxConcurrentTasks: 5 },
      ip: '203.0.113.9',
    },
  ]);
});

test('fields named like secrets never reach the table', async () => {
  await recordAudit(db, {
    actor: { type: 'admin_token' },
    action: 'webhook.create',
    targetType: 'webhook',
    targetId: 'wh_1',
    accountId: 'acc_1',
    after: { url: 'https://example.com/h', secret: 'whsec_live', nested: { password: 'hunter2', passwordHash: 'scrypt$x', apiKey: 'mg_live_x' } },
  });
  await sqlTransaction(db, (c) => recordAuditIn(c, { actor: { type: 'holder', id: 'h1' }, action: 'api_key.create', targetType: 'api_key', targetId: 'key_1', accountId: 'acc_1', after: { prefix: 'mg_live_ab', key: 'mg_live_abcdef', token: 't' } }));
  const raw = JSON.stringify((await sql(db, 'SELECT "before", "after" FROM "AuditEvent"')).rows);
  for (const secret of ['whsec_live', 'hunter2', 'scrypt$x', 'mg_live_x', 'mg_live_abcdef']) expect(raw).not.toContain(secret);
  const { events } = await listAuditEvents(db, { action: 'webhook.create', limit: 10 });
  expect(events[0].after).toEqual({ url: 'https://example.com/h', secret: '[redacted]', nested: { password: '[redacted]', passwordHash: '[redacted]', apiKey: '[redacted]' } });
});

test('filters by actor type, action, account and target, and pages with a cursor without repeats', async () => {
  for (let i = 0; i < 7; i++) {
    await recordAudit(db, { actor: { type: i % 2 ? 'operator' : 'system' }, action: i < 4 ? 'api_key.create' : 'api_key.revoke', targetType: 'api_key', targetId: `key_${i}`, accountId: i < 5 ? 'acc_a' : 'acc_b' });
  }
  // Distinct instants: events written within one millisecond would order by their random ids.
  await sql(db, `UPDATE "AuditEvent" SET "createdAt" = '2026-01-01T00:00:00Z'::timestamptz + substring("targetId" from 5)::int * interval '1 second'`);
  expect((await listAuditEvents(db, { actorType: 'operator', limit: 50 })).events.map((e) => e.targetId)).toEqual(['key_5', 'key_3', 'key_1']);
  expect((await listAuditEvents(db, { action: 'api_key.revoke', limit: 50 })).events.map((e) => e.targetId)).toEqual(['key_6', 'key_5', 'key_4']);
  expect((await listAuditEvents(db, { accountId: 'acc_b', limit: 50 })).events.map((e) => e.targetId)).toEqual(['key_6', 'key_5']);
  expect((await listAuditEvents(db, { targetId: 'key_2', limit: 50 })).events.map((e) => e.action)).toEqual(['api_key.create']);

  const seen: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await listAuditEvents(db, { accountId: 'acc_a', cursor, limit: 2 });
    expect(page.events.length).toBeLessThanOrEqual(2);
    seen.push(...page.events.map((e) => e.targetId!));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  expect(seen).toEqual(['key_4', 'key_3', 'key_2', 'key_1', 'key_0']);

  await expect(listAuditEvents(db, { cursor: 'not-a-cursor', limit: 2 })).rejects.toBeInstanceOf(InvalidAuditCursorError);
  const foreign = Buffer.from(JSON.stringify(['tasks', '2026-01-01T00:00:00.000Z', 'x'])).toString('base64url');
  await expect(listAuditEvents(db, { cursor: foreign, limit: 2 })).rejects.toBeInstanceOf(InvalidAuditCursorError);
});

test('retention deletes only events older than the cut-off, at most one batch per call', async () => {
  for (let i = 0; i < 5; i++) await recordAudit(db, { actor: { type: 'system' }, action: 'old.event', targetType: 'x', targetId: `old_${i}` });
  await sql(db, `UPDATE "AuditEvent" SET "createdAt" = now() - interval '400 days'`);
  await recordAudit(db, { actor: { type: 'system' }, action: 'new.event', targetType: 'x', targetId: 'new' });
  const cutoff = new Date(Date.now() - 365 * 86_400_000);
  expect(await deleteAuditEventsBefore(db, cutoff, 2)).toBe(2);
  expect(await deleteAuditEventsBefore(db, cutoff, 2)).toBe(2);
  expect(await deleteAuditEventsBefore(db, cutoff, 2)).toBe(1);
  expect(await deleteAuditEventsBefore(db, cutoff, 2)).toBe(0);
  expect((await listAuditEvents(db, { limit: 10 })).events.map((e) => e.action)).toEqual(['new.event']);
});
