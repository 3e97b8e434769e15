// Our own SQL runs as named statements on a connection that is a Postgres session of its own:
// parsed once per connection (and planned once, after a few runs, when a generic plan is as cheap),
// never on a session that does not prove it is ours, never past the per-connection bound, and
// Prisma's queries stay unnamed. Behind a real PgBouncer: test/e2e/pgbouncer.e2e.test.ts.
import net from 'node:net';
import { createDb, Db, sql, sqlPool, sqlTransaction } from '../src';
import { MAX_NAMES_PER_CONNECTION } from '../src/prepared-statements';
import { createTestSchema, TestSchema } from '../src/test-schema';

let schema: TestSchema;
let db: Db;

beforeAll(async () => {
  schema = await createTestSchema('prepared_statements');
  // One connection: every query below runs in the same session, so what it leaves is visible.
  db = createDb(schema.url, { poolSize: 1 });
});

afterAll(async () => {
  await db?.$disconnect();
  await schema?.drop();
});

const preparedIn = async (d: Db) =>
  (await sql<{ name: string; statement: string; generic_plans: string; custom_plans: string }>(d, 'SELECT name, statement, generic_plans, custom_plans FROM pg_prepared_statements')).rows;

test('a statement with values is prepared once on the connection and reused, with a generic plan after a few runs', async () => {
  await sql(db, `INSERT INTO "Account" ("id", "name") VALUES ($1, $2)`, ['acc_prep', 'prep']);
  const text = `SELECT "name" FROM "Account" WHERE "id" = $1`;
  for (let i = 0; i < 8; i++) expect((await sql<{ name: string }>(db, text, ['acc_prep'])).rows).toEqual([{ name: 'prep' }]);
  const rows = (await preparedIn(db)).filter((r) => r.statement.includes(`FROM "${schema.schema}"."Account" WHERE "id" = $1`));
  expect(rows).toHaveLength(1);
  expect(rows[0].name).toMatch(/^mg_[A-Za-z0-9_-]{22}$/);
  // Postgres tries custom plans five times, then keeps the generic one for a primary-key lookup.
  expect(Number(rows[0].generic_plans)).toBeGreaterThan(0);
  expect(Number(rows[0].custom_plans)).toBeLessThanOrEqual(5);
});

test('statements inside a transaction are named too; statements without values and Prisma\'s are not', async () => {
  await sqlTransaction(db, async (c) => {
    await c.query(`UPDATE "Account" SET "name" = $2 WHERE "id" = $1`, ['acc_prep', 'renamed']);
  });
  await db.account.findMany({ where: { id: 'acc_prep' } });
  await db.$queryRaw`SELECT "id" FROM "Account" WHERE "id" = ${'acc_prep'}`;
  const statements = (await preparedIn(db)).map((r) => r.statement);
  expect(statements.some((t) => t.startsWith(`UPDATE "${schema.schema}"."Account" SET "name" = $2`))).toBe(true);
  // Prisma's generated SQL and its raw queries, BEGIN and COMMIT: none of them named.
  expect(statements.filter((t) => !t.includes('$1'))).toEqual([]);
  expect(statements.filter((t) => t.includes(`"${schema.schema}"."Account"."id"`) || t.startsWith('SELECT "id"'))).toEqual([]);
});

test('a connection takes at most MAX_NAMES_PER_CONNECTION names; texts beyond it run unnamed', async () => {
  const before = (await preparedIn(db)).length;
  for (let i = 0; i < MAX_NAMES_PER_CONNECTION + 20; i++) expect((await sql<{ n: number }>(db, `SELECT $1::int + ${i} AS n`, [1])).rows[0].n).toBe(1 + i);
  expect((await preparedIn(db)).length).toBe(MAX_NAMES_PER_CONNECTION);
  expect(before).toBeLessThan(MAX_NAMES_PER_CONNECTION);
});

test('DB_PREPARED_STATEMENTS=false (preparedStatements: false) names nothing', async () => {
  const off = createDb(schema.url, { poolSize: 1, preparedStatements: false });
  try {
    for (let i = 0; i < 3; i++) await sql(off, `SELECT "name" FROM "Account" WHERE "id" = $1`, ['acc_prep']);
    expect(await preparedIn(off)).toEqual([]);
  } finally {
    await off.$disconnect();
  }
});

test('a named statement that fails as only shared sessions make it fail fails alone; nothing is named after it', async () => {
  const d = createDb(schema.url, { poolSize: 1 });
  try {
    const text = `SELECT "name" FROM "Account" WHERE "id" = $1`;
    await sql(d, text, ['acc_prep']);
    // The session loses the statement behind pg's back, as a pooler's next server session would not have it.
    await sql(d, 'DEALLOCATE ALL');
    await expect(sql(d, text, ['acc_prep'])).rejects.toMatchObject({ code: '26000' });
    expect((await sql<{ name: string }>(d, text, ['acc_prep'])).rows).toEqual([{ name: 'renamed' }]);
    await sql(d, `SELECT count(*)::int AS n FROM "Task" WHERE "accountId" = $1`, ['acc_prep']);
    expect(await preparedIn(d)).toEqual([]);
  } finally {
    await d.$disconnect();
  }
});

/**
 * A proxy to Postgres that cuts a connection at its first query after startup (the session probe)
 * while `cutting`: the server goes away between connect and the first query, as a restart or a
 * proxy's idle cut can make it.
 */
async function cuttingProxy(target: URL) {
  const state = { cutting: true, cuts: 0 };
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    open.add(client).add(upstream);
    let started = false;
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
    client.on('data', (chunk: Buffer) => {
      // The first message is the startup packet (no type byte); a simple query is 'Q'.
      if (started && state.cutting && chunk[0] === 0x51) {
        state.cuts++;
        client.destroy();
        upstream.destroy();
        return;
      }
      started = true;
      upstream.write(chunk);
    });
    upstream.pipe(client);
    client.on('close', () => {
      open.delete(client);
      upstream.destroy();
    });
    upstream.on('close', () => {
      open.delete(upstream);
      client.destroy();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as net.AddressInfo).port);
  const close = () =>
    new Promise<void>((r) => {
      for (const sock of open) sock.destroy();
      server.close(() => r());
    });
  return { url: url.toString(), state, close };
}

test('a connection cut during its session probe fails only the query that waited for it, not the process', async () => {
  const proxy = await cuttingProxy(new URL(schema.url));
  const d = createDb(proxy.url, { poolSize: 1 });
  const poolErrors: Error[] = [];
  sqlPool(d).on('error', (e) => poolErrors.push(e));
  try {
    // Before the probe ran under the pool's error listener, this cut was an unhandled 'error'
    // event on the connection: an uncaught exception that took the whole worker down.
    await expect(sql(d, `SELECT "name" FROM "Account" WHERE "id" = $1`, ['acc_prep'])).rejects.toThrow(/connection|terminated/i);
    expect(proxy.state.cuts).toBe(1);
    expect(poolErrors.map((e) => e.message)).toEqual([expect.stringMatching(/terminated/i)]);
    proxy.state.cutting = false;
    expect((await sql<{ name: string }>(d, `SELECT "name" FROM "Account" WHERE "id" = $1`, ['acc_prep'])).rows).toEqual([{ name: 'renamed' }]);
    // The new connection proved its own session: its statement is named.
    expect((await preparedIn(d)).map((r) => r.name)).toEqual([expect.stringMatching(/^mg_/)]);
  } finally {
    await d.$disconnect();
    await proxy.close();
  }
});
