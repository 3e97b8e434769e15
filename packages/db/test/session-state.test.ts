// No query may depend on session state, because behind PgBouncer in
// transaction mode each transaction may run on a server connection that another client's session
// set up. Here every session starts with a search_path that finds no table and with no timeouts
// (as a pooled connection would): the queries still find their schema's tables, transactions
// still carry the configured timeouts, and nothing leaves a named prepared statement behind.
// The whole stack behind a real PgBouncer: test/e2e/pgbouncer.e2e.test.ts.
import { createDb, Db, sql, sqlTransaction } from '../src';
import { sqlQualifier } from '../src/qualify-sql';
import { createTestSchema, createTimeZoneDatabase, TestSchema, withSessionSetting } from '../src/test-schema';

let schema: TestSchema;
let db: Db;

beforeAll(async () => {
  schema = await createTestSchema('session_state');
  let url = withSessionSetting(schema.url, 'search_path', 'nowhere');
  url = withSessionSetting(url, 'statement_timeout', '0');
  url = withSessionSetting(url, 'idle_in_transaction_session_timeout', '0');
  // One connection: every query below runs in the same session, so what it leaves is visible.
  db = createDb(url, { poolSize: 1, timeouts: { statementMs: 1234, idleInTransactionMs: 4321 } });
});

afterAll(async () => {
  await db?.$disconnect();
  await schema?.drop();
});

test('tables and enum types are found whatever the session search_path is', async () => {
  expect((await sql<{ search_path: string }>(db, 'SHOW search_path')).rows[0].search_path).toBe('nowhere');
  await sql(db, `INSERT INTO "Account" ("id", "name") VALUES ($1, $2)`, ['acc_session', 'session']);
  expect(await db.account.count()).toBe(1);
  const raw = await db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM "Account" a WHERE a."id" = ${'acc_session'}`;
  expect(raw[0].n).toBe(1);
  const typed = await sql<{ n: number }>(db, `SELECT count(*)::int AS n FROM "Task" WHERE "type" = $1::"TaskType" AND "status" = ANY($2::"TaskStatus"[])`, ['image', ['pending']]);
  expect(typed.rows[0].n).toBe(0);
  await db.$transaction(async (tx) => {
    await tx.account.update({ where: { id: 'acc_session' }, data: { name: 'renamed' } });
    await tx.$executeRaw`UPDATE "Account" SET "tasksInProgress" = 0 WHERE "id" = ${'acc_session'}`;
  });
  expect((await db.account.findUniqueOrThrow({ where: { id: 'acc_session' } })).name).toBe('renamed');
});

test('every transaction carries the statement and idle-in-transaction timeouts itself', async () => {
  const show = async (q: (text: string) => Promise<Record<string, string>>) => [
    (await q('SHOW statement_timeout')).statement_timeout,
    (await q('SHOW idle_in_transaction_session_timeout')).idle_in_transaction_session_timeout,
  ];
  expect(await show(async (t) => (await sql<Record<string, string>>(db, t)).rows[0])).toEqual(['0', '0']);
  expect(await sqlTransaction(db, (c) => show(async (t) => (await c.query(t)).rows[0]))).toEqual(['1234ms', '4321ms']);
  expect(await db.$transaction((tx) => show(async (t) => (await tx.$queryRawUnsafe<Record<string, string>[]>(t))[0]))).toEqual(['1234ms', '4321ms']);
  // SET LOCAL ends with its transaction: the session is as it was.
  expect(await show(async (t) => (await sql<Record<string, string>>(db, t)).rows[0])).toEqual(['0', '0']);
});

test('a session that does not prove it is ours (as behind a pooler) is left no named prepared statement', async () => {
  // As a pooler that drops our startup options would: the session lacks the setting we send.
  const pooled = createDb(withSessionSetting(schema.url, 'mediagen.own_session', 'off'), { poolSize: 1 });
  try {
    await pooled.task.findMany({ where: { accountId: 'acc_session' } });
    for (let i = 0; i < 3; i++) await sql(pooled, `SELECT count(*)::int AS n FROM "Task" WHERE "accountId" = $1`, ['acc_session']);
    await sqlTransaction(pooled, (c) => c.query(`SELECT count(*)::int AS n FROM "Account" WHERE "id" = $1`, ['acc_session']));
    expect((await sql<{ n: number }>(pooled, 'SELECT count(*)::int AS n FROM pg_prepared_statements')).rows[0].n).toBe(0);
  } finally {
    await pooled.$disconnect();
  }
});

test('the qualifier prefixes unqualified table and enum names only', () => {
  const q = sqlQualifier('s1');
  expect(q(`SELECT t."id", "Task"."status" FROM "Task" t JOIN "TaskAttempt" a ON a."taskId" = t."id" WHERE t."type" = $1::"TaskType"`)).toBe(
    `SELECT t."id", "s1"."Task"."status" FROM "s1"."Task" t JOIN "s1"."TaskAttempt" a ON a."taskId" = t."id" WHERE t."type" = $1::"s1"."TaskType"`,
  );
  // Prisma's own queries already name the schema: untouched.
  const generated = `SELECT "s1"."Task"."id" FROM "s1"."Task" WHERE "s1"."Task"."accountId" = $1`;
  expect(q(generated)).toBe(generated);
  // Column names and other identifiers are not table names.
  expect(q(`SELECT "taskId", "TaskIdx" FROM x`)).toBe(`SELECT "taskId", "TaskIdx" FROM x`);
});

test('on a server whose default zone is not UTC, a DateTime written by Prisma is the instant it was given', async () => {
  const tzDb = await createTimeZoneDatabase('America/New_York');
  const s = await createTestSchema('session_tz', { baseUrl: tzDb.url });
  const tz = createDb(s.url, { poolSize: 1 });
  try {
    const at = new Date('2026-06-01T12:00:00.000Z');
    await tz.account.create({ data: { id: 'acc_tz', name: 'tz', createdAt: at } });
    const r = await sql<{ same: boolean }>(tz, `SELECT "createdAt" = $1::timestamptz AS same FROM "Account" WHERE "id" = 'acc_tz'`, [at.toISOString()]);
    expect(r.rows[0].same).toBe(true);
    expect((await tz.account.count({ where: { createdAt: { gte: at } } }))).toBe(1);
  } finally {
    await tz.$disconnect();
    await tzDb.drop();
  }
});
