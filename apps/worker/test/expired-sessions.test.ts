// Expired console sessions are deleted by a scheduled maintenance job (they are already refused at
// sign-in; without the job the table only grows). Runs the job through the maintenance processor, as
// the scheduler does, on the real Postgres.
import { createDb, createSession, Db, upsertOperator } from '@mediagen/db';
import { createTestSchema, TestSchema } from '@mediagen/db/testing';
import { JOBS, MAINTENANCE_JOBS } from '@mediagen/queue';
import { MAINTENANCE, maintenanceProcessor } from '../src/maintenance';
import type { WorkerContext } from '../src/context';

let schema: TestSchema;
let db: Db;
beforeAll(async () => {
  schema = await createTestSchema('expired_sessions');
  db = createDb(schema.url, { poolSize: 2 });
});
afterAll(async () => {
  await db?.$disconnect();
  await schema?.drop();
});

it('is a scheduled maintenance job that deletes expired sessions and keeps live ones', async () => {
  expect(MAINTENANCE_JOBS).toContain('expire-sessions');
  expect(MAINTENANCE[JOBS.expireSessions].everyMs({} as never)).toBeLessThanOrEqual(3_600_000);
  await upsertOperator(db, { id: 'op_1', name: 'ops', role: 'admin', passwordHash: 'scrypt$x' });
  const id = 'op_1';
  const hour = 3600_000;
  await createSession(db, { id: 'old', operatorId: id, csrfToken: 'c', expiresAt: new Date(Date.now() - hour) });
  await createSession(db, { id: 'older', operatorId: id, csrfToken: 'c', expiresAt: new Date(Date.now() - 9 * hour) });
  await createSession(db, { id: 'live', operatorId: id, csrfToken: 'c', expiresAt: new Date(Date.now() + hour) });
  const ctx = { db, log: { warn: () => undefined } } as unknown as WorkerContext;
  const result = await maintenanceProcessor(ctx)({ name: 'expire-sessions', data: {} });
  expect(result).toEqual({ sessionsDeleted: 2, linksDeleted: 0 });
  expect((await db.operatorSession.findMany({ select: { id: true } })).map((s) => s.id)).toEqual(['live']);
  // Safe to run again (another worker, a retry after a crash): nothing left to delete.
  expect(await maintenanceProcessor(ctx)({ name: JOBS.expireSessions, data: {} })).toEqual({ sessionsDeleted: 0, linksDeleted: 0 });
});
