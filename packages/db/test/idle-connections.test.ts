// A pooled connection outlives a lull: pg-pool's own default closes one after 10 s idle, and the
// next query then pays a new connection (startup, the own-session probe, every named statement
// parsed again): ~10x a query on a kept connection on our CI machines. DB_POOL_IDLE_MS (5 min by
// default) is how long one is kept; the pool's size, not this, bounds how many there are.
import { createDb, Db, sql } from '../src';
import { createTestSchema, TestSchema } from '../src/test-schema';

let schema: TestSchema;
const opened: Db[] = [];

beforeAll(async () => {
  schema = await createTestSchema('idle_connections');
});

afterAll(async () => {
  await Promise.all(opened.map((d) => d.$disconnect()));
  await schema?.drop();
});

const backend = async (db: Db) => (await sql<{ pid: number }>(db, 'SELECT pg_backend_pid() AS pid')).rows[0].pid;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('with the default settings a connection idle past the driver\'s 10 s is still the one that answers', async () => {
  const db = createDb(schema.url, { poolSize: 1 });
  opened.push(db);
  const first = await backend(db);
  await sleep(10_800);
  expect(await backend(db)).toBe(first);
}, 30_000);

test('DB_POOL_IDLE_MS closes a connection idle longer than it, and 0 keeps it', async () => {
  const short = createDb(schema.url, { poolSize: 1, timeouts: { poolIdleMs: 200 } });
  const kept = createDb(schema.url, { poolSize: 1, timeouts: { poolIdleMs: 0 } });
  opened.push(short, kept);
  const [s0, k0] = [await backend(short), await backend(kept)];
  await sleep(700);
  const [s1, k1] = [await backend(short), await backend(kept)];
  expect(s1).not.toBe(s0);
  expect(k1).toBe(k0);
});

test('$disconnect of a client that ran raw SQL alone (Prisma never connected) releases its connection at once', async () => {
  const db = createDb(schema.url, { poolSize: 1 });
  const observer = createDb(schema.url, { poolSize: 1 });
  opened.push(observer);
  const pid = await backend(db);
  await db.$disconnect();
  // The server ends the backend once the client's Terminate arrives; without the pool ended it stays idle for DB_POOL_IDLE_MS.
  const until = Date.now() + 5_000;
  let alive = true;
  while (alive && Date.now() < until) {
    alive = (await sql<{ n: number }>(observer, 'SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = $1', [pid])).rows[0].n > 0;
    if (alive) await sleep(50);
  }
  expect(alive).toBe(false);
});
