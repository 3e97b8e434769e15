// Audit retention: the `prune-audit` maintenance job deletes events older than
// AUDIT_RETENTION_DAYS (default 365), across several small batches, and keeps the rest.
import { loadConfig } from '@mediagen/config';
import { createDb, Db, listAuditEvents, recordAudit, sql } from '@mediagen/db';
import { createTestSchema, TestSchema } from '@mediagen/db/testing';
import { MAINTENANCE } from '../src/maintenance';
import type { WorkerContext } from '../src/context';

let schema: TestSchema;
let db: Db;

beforeAll(async () => {
  schema = await createTestSchema('audit_retention');
  db = createDb(schema.url);
});
afterAll(async () => {
  await db?.$disconnect();
  await schema?.drop();
});

test('AUDIT_RETENTION_DAYS defaults to a year', () => {
  expect(loadConfig({}).AUDIT_RETENTION_DAYS).toBe(365);
  expect(() => loadConfig({ AUDIT_RETENTION_DAYS: '0' })).toThrow(/AUDIT_RETENTION_DAYS/);
});

test('the job deletes every event past the retention, over several batches, and nothing newer', async () => {
  // 1,203 events of 40 days ago (more than two batches), 1 of 20 days ago, 1 of now.
  await sql(
    db,
    `INSERT INTO "AuditEvent" ("id", "createdAt", "actorType", "action", "targetType")
     SELECT 'old_' || g, now() - interval '40 days', 'system', 'old.event', 'x' FROM generate_series(1, 1203) g`,
  );
  await recordAudit(db, { actor: { type: 'system' }, action: 'recent.event', targetType: 'x' });
  await sql(db, `UPDATE "AuditEvent" SET "createdAt" = now() - interval '20 days' WHERE "action" = 'recent.event'`);
  await recordAudit(db, { actor: { type: 'system' }, action: 'new.event', targetType: 'x' });

  const ctx = { db, config: loadConfig({ AUDIT_RETENTION_DAYS: '30' }) } as unknown as WorkerContext;
  expect(await MAINTENANCE['prune-audit'].run(ctx, {})).toEqual({ auditEventsDeleted: 1203 });
  expect((await listAuditEvents(db, { limit: 10 })).events.map((e) => e.action)).toEqual(['new.event', 'recent.event']);
  expect(await MAINTENANCE['prune-audit'].run(ctx, {})).toEqual({ auditEventsDeleted: 0 });
});
