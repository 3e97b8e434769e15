// Named statements never reach PgBouncer in transaction mode, whether it refuses our startup
// options (its default) or accepts and drops them (ignore_startup_parameters = options): a
// statement prepared on one server session and run on another would fail with "prepared statement
// does not exist" or "already exists". Two pools of four share two server connections, and each
// runs the same statements many times at once, so a named statement would meet a foreign session
// within a few runs. The direct connection beside them does name its statements.
import { randomBytes } from 'node:crypto';
import { createDb, Db, sql, sqlTransaction } from '@mediagen/db';
import { createTestSchema, TestSchema } from '@mediagen/db/testing';
import { onTestServer, PgBouncer, pgbouncerMissing, startPgBouncer, testServerUrl } from './support/pgbouncer';

jest.setTimeout(60_000);

const skip = pgbouncerMissing();
const dbName = `mg_pgbp_${randomBytes(4).toString('hex')}`;
let schema: TestSchema;

beforeAll(async () => {
  if (skip) return;
  await onTestServer((c) => c.query(`CREATE DATABASE "${dbName}"`));
  const dbUrl = new URL(testServerUrl);
  dbUrl.pathname = `/${dbName}`;
  schema = await createTestSchema('e2e_pgbp', { baseUrl: dbUrl.toString() });
});

afterAll(async () => {
  if (skip) return;
  await schema?.drop();
  await onTestServer((c) => c.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`));
});

/** Runs the same few statements `rounds` times from every pool at once; the errors they met. */
async function hammer(dbs: Db[], rounds: number): Promise<string[]> {
  const errors: string[] = [];
  const one = async (d: Db, i: number) => {
    try {
      await sql(d, `SELECT count(*)::int AS n FROM "Account" WHERE "id" = $1`, [`acc_${i % 3}`]);
      await sql(d, `SELECT $1::text AS v`, [String(i)]);
      await sqlTransaction(d, (c) => c.query(`SELECT count(*)::int AS n FROM "Task" WHERE "accountId" = $1`, [`acc_${i % 3}`]));
    } catch (e) {
      errors.push((e as Error).message);
    }
  };
  await Promise.all(dbs.flatMap((d) => Array.from({ length: rounds }, (_, i) => one(d, i))));
  return errors;
}

const preparedOnOwnConnection = async (d: Db) => (await sqlTransaction(d, (c) => c.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_prepared_statements'))).rows[0].n;

for (const mode of [{ name: 'PgBouncer defaults (startup options refused)' }, { name: 'ignore_startup_parameters = options', ignore: 'options' }]) {
  (skip ? describe.skip : describe)(mode.name, () => {
    let bouncer: PgBouncer;
    let dbs: Db[];

    beforeAll(async () => {
      bouncer = await startPgBouncer(testServerUrl, { poolSize: 2, ignoreStartupParameters: mode.ignore });
      dbs = [createDb(bouncer.via(schema.url), { poolSize: 4 }), createDb(bouncer.via(schema.url), { poolSize: 4 })];
    });

    afterAll(async () => {
      await Promise.all((dbs ?? []).map((d) => d.$disconnect()));
      await bouncer?.stop();
    });

    test('the same statements from two pools at once all succeed, none of them named', async () => {
      expect(await hammer(dbs, 60)).toEqual([]);
      expect(await hammer(dbs, 60)).toEqual([]);
      for (const d of dbs) expect(await preparedOnOwnConnection(d)).toBe(0);
    });
  });
}

(skip ? test.skip : test)('a direct connection names the same statements', async () => {
  const direct = createDb(schema.url, { poolSize: 1 });
  try {
    expect(await hammer([direct], 5)).toEqual([]);
    expect(await preparedOnOwnConnection(direct)).toBeGreaterThanOrEqual(3);
  } finally {
    await direct.$disconnect();
  }
});
