// Operator changes end the operator's sessions in the same transaction: a reset password, a new
// role or a disable leaves no session of theirs working (a session opened with the old password, or
// holding the old role, must not outlive the change). Expired sessions are deleted by housekeeping.
import { createDb, createSession, Db, deleteExpiredSessions, disableOperator, findSession, upsertOperator } from '../src';
import { createTestSchema, TestSchema } from '../src/test-schema';

let schema: TestSchema;
let db: Db;

beforeAll(async () => {
  schema = await createTestSchema('operator_sessions');
  db = createDb(schema.url, { poolSize: 2 });
});
afterAll(async () => {
  await db?.$disconnect();
  await schema?.drop();
});

let n = 0;
async function operatorWithSession(role: 'admin' | 'viewer' = 'admin') {
  const name = `op${++n}`;
  await upsertOperator(db, { id: `op_${name}`, name, role, passwordHash: 'scrypt$old' });
  const sessionId = `sess_${name}`;
  await createSession(db, { id: sessionId, operatorId: `op_${name}`, csrfToken: 'c', expiresAt: new Date(Date.now() + 3600_000) });
  expect(await findSession(db, sessionId)).not.toBeNull();
  return { name, sessionId };
}

test('a password reset ends every session of the operator', async () => {
  const { name, sessionId } = await operatorWithSession();
  await upsertOperator(db, { id: 'op_unused', name, role: 'admin', passwordHash: 'scrypt$new' });
  expect(await findSession(db, sessionId)).toBeNull();
  expect(await db.operatorSession.count({ where: { id: sessionId } })).toBe(0);
});

test('a role change ends every session of the operator', async () => {
  const { name, sessionId } = await operatorWithSession('admin');
  await upsertOperator(db, { id: 'op_unused', name, role: 'viewer', passwordHash: 'scrypt$old' });
  expect(await db.operatorSession.count({ where: { id: sessionId } })).toBe(0);
});

test('a disable ends every session; other operators keep theirs', async () => {
  const a = await operatorWithSession();
  const b = await operatorWithSession();
  expect(await disableOperator(db, a.name)).toBe(true);
  expect(await db.operatorSession.count({ where: { id: a.sessionId } })).toBe(0);
  expect(await findSession(db, b.sessionId)).not.toBeNull();
});

test('deleteExpiredSessions deletes expired sessions only', async () => {
  const { sessionId } = await operatorWithSession();
  await createSession(db, { id: 'sess_expired', operatorId: `op_op${n}`, csrfToken: 'c', expiresAt: new Date(Date.now() - 1000) });
  expect(await deleteExpiredSessions(db)).toBeGreaterThanOrEqual(1);
  expect(await db.operatorSession.count({ where: { id: 'sess_expired' } })).toBe(0);
  expect(await findSession(db, sessionId)).not.toBeNull();
});
