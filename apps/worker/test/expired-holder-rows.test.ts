// The expire-sessions job also deletes account holders' expired sessions and their emailed links a
// day after use or expiry, and keeps what is live (real Postgres).
import { createDb, createHolderSession, createHolderToken, createHolderWithAccount, Db } from '@mediagen/db';
import { createTestSchema, TestSchema } from '@mediagen/db/testing';
import { maintenanceProcessor } from '../src/maintenance';
import type { WorkerContext } from '../src/context';

let schema: TestSchema;
let db: Db;
beforeAll(async () => {
  schema = await createTestSchema('expired_holder_rows');
  db = createDb(schema.url, { poolSize: 2 });
});
afterAll(async () => {
  await db?.$disconnect();
  await schema?.drop();
});

it('deletes expired holder sessions and spent links, keeps live ones', async () => {
  const out = await createHolderWithAccount(db, { email: 'x@example.com', passwordHash: 'scrypt$x', openingBalanceCents: 0 });
  if (!('holderId' in out)) throw new Error('taken');
  const hour = 3600_000;
  const at = (ms: number) => new Date(Date.now() + ms);
  await createHolderSession(db, { id: 'old', holderId: out.holderId, csrfToken: 'c', expiresAt: at(-hour) });
  await createHolderSession(db, { id: 'live', holderId: out.holderId, csrfToken: 'c', expiresAt: at(hour) });
  await createHolderToken(db, { id: 'expired-long-ago', purpose: 'verify', holderId: out.holderId, expiresAt: at(-25 * hour) });
  await createHolderToken(db, { id: 'expired-recently', purpose: 'reset', holderId: out.holderId, expiresAt: at(-hour) });
  await createHolderToken(db, { id: 'live-link', purpose: 'invite', holderId: null, expiresAt: at(hour) });
  const ctx = { db, log: { warn: () => undefined } } as unknown as WorkerContext;
  expect(await maintenanceProcessor(ctx)({ name: 'expire-sessions', data: {} })).toEqual({ sessionsDeleted: 1, linksDeleted: 1 });
  expect((await db.holderSession.findMany({ select: { id: true } })).map((s) => s.id)).toEqual(['live']);
  expect((await db.holderToken.findMany({ select: { id: true }, orderBy: { id: 'asc' } })).map((s) => s.id)).toEqual(['expired-recently', 'live-link']);
});
