// The service works unchanged with DATABASE_URL pointing at PgBouncer in
// transaction pooling mode, with PgBouncer's defaults (no ignore_startup_parameters). Three server
// connections serve the gateway, the worker and this file's client, so one client's transactions
// land on connections another client used before: anything kept in a session (search_path,
// prepared statements, session locks, LISTEN) would be lost or leak. The schema is not `public`
// (a query that relied on search_path would not find its table), in a database of its own whose
// default time zone is not UTC.
import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createDb, sql } from '@mediagen/db';
import { createTestSchema, TestSchema } from '@mediagen/db/testing';
import { Account, apiClient } from './support/api';
import { onTestServer, PgBouncer, pgbouncerMissing, startPgBouncer, testServerUrl } from './support/pgbouncer';
import type { Stack } from './support/stack';
import { e2eSuite } from './support/suite';

jest.setTimeout(60_000);

const POOL_SIZE = 3;
const skip = pgbouncerMissing();

let stack: Stack;
let api: ReturnType<typeof apiClient>;
let account: Account;
const dbName = `mg_pgb_${randomBytes(4).toString('hex')}`;

/** A database of its own with the migrations applied directly (not through PgBouncer), and PgBouncer in front. */
async function prepare() {
  // A server whose default time zone is not UTC: behind PgBouncer the sessions keep it.
  await onTestServer(async (c) => {
    await c.query(`CREATE DATABASE "${dbName}"`);
    await c.query(`ALTER DATABASE "${dbName}" SET TimeZone TO 'America/New_York'`);
  });
  const dropDb = () => onTestServer((c) => c.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`));
  const dbUrl = new URL(testServerUrl);
  dbUrl.pathname = `/${dbName}`;
  let bouncer: PgBouncer | undefined;
  let schema: TestSchema;
  try {
    schema = await createTestSchema('e2e_pgb', { baseUrl: dbUrl.toString() });
    bouncer = await startPgBouncer(testServerUrl, { poolSize: POOL_SIZE });
  } catch (err) {
    await bouncer?.stop();
    await dropDb();
    throw err;
  }
  const b = bouncer;
  return {
    schema,
    databaseUrl: (url: string) => b.via(url),
    afterStop: async () => {
      await b.stop();
      await dropDb();
    },
    env: { TASK_TIMEOUT_MS: '6000' },
  };
}

const costOf = async (taskId: string) => (await stack.db.task.findUniqueOrThrow({ where: { id: taskId }, select: { costCents: true } })).costCents;

async function ledgerOf(accountId: string) {
  const rows = await stack.db.ledgerEntry.findMany({ where: { accountId }, select: { kind: true, amountCents: true, taskId: true } });
  return { charges: rows.filter((r) => r.kind === 'charge'), refunds: rows.filter((r) => r.kind === 'refund'), sum: rows.reduce((s, r) => s + Number(r.amountCents), 0) };
}

async function balanceOf(a: Account): Promise<number> {
  const res = await api.admin('GET', `/accounts/${a.accountId}`);
  return Number(res.body.balanceCents);
}

(skip ? describe.skip : describe)('behind PgBouncer in transaction pooling mode', () => {
  e2eSuite('pgb', { stack: prepare }, (s) => ({ stack, api, account } = s));

  it('the processes reach Postgres only through PgBouncer, whose few server connections they share', async () => {
    expect(stack.env.DATABASE_URL).toContain(`/${dbName}?schema=`);
    expect(new URL(stack.env.DATABASE_URL).port).not.toBe(new URL(testServerUrl).port || '5432');
  });

  it('a new pool opening many connections at once: each refused startup is retried, every query answers', async () => {
    const db = createDb(stack.env.DATABASE_URL, { poolSize: 8 });
    try {
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) => (i % 2 ? db.account.count() : sql<{ n: number }>(db, 'SELECT count(*)::int AS n FROM "Account"').then((r) => r.rows[0].n))),
      );
      expect(new Set(answers).size).toBe(1);
    } finally {
      await db.$disconnect();
    }
  });

  it('image and video tasks run to completion, with their result files', async () => {
    const image = await api.submit(account, 'image', { model: 'image-b-2.5', prompt: 'a lighthouse through a pooler' });
    const video = await api.submit(account, 'video', { model: 'video-a-h3', prompt: 'waves through a pooler', duration: 2, resolution: '480p' });
    expect([image.status, video.status]).toEqual([200, 200]);
    for (const [kind, res] of [['image', image], ['video', video]] as const) {
      const last = (await api.untilSettled(account, kind, String(res.body.taskId))).at(-1)!;
      expect(last.status).toBe('completed');
      const urls = last.resultUrls as string[];
      expect(urls.length).toBeGreaterThan(0);
      expect((await api.fetchFile(urls[0])).status).toBe(200);
    }
  });

  it('concurrent submits racing on one balance: exactly as many charges as the balance pays, the rest 402', async () => {
    const probe = await api.submit(account, 'image', { model: 'image-b-2.5', prompt: 'what does one cost' });
    const cost = await costOf(String(probe.body.taskId));
    const poor = await api.newAccount(4 * cost + cost - 1);
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => api.submit(poor, 'image', { model: 'image-b-2.5', prompt: `race ${i}` })),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([...Array(4).fill(200), ...Array(8).fill(402)]);
    for (const a of answers.filter((x) => x.status === 402)) expect(a.body.code).toBe('insufficient_balance');
    for (const a of answers.filter((x) => x.status === 200)) {
      expect((await api.untilSettled(poor, 'image', String(a.body.taskId))).at(-1)!.status).toBe('completed');
    }
    const ledger = await ledgerOf(poor.accountId);
    expect(ledger.charges).toHaveLength(4);
    expect(await balanceOf(poor)).toBe(cost - 1);
    expect(ledger.sum).toBe(cost - 1);
  });

  it('the same Idempotency-Key sent 8 times at once: one task, one charge', async () => {
    const a = await api.newAccount(10_000);
    const key = `pgb-${randomBytes(4).toString('hex')}`;
    const body = { model: 'image-b-2.5', prompt: 'one of eight' };
    const answers = await Promise.all(Array.from({ length: 8 }, () => api.submit(a, 'image', body, { 'Idempotency-Key': key })));
    for (const r of answers) expect([200, 409]).toContain(r.status);
    const ids = new Set(answers.filter((r) => r.status === 200).map((r) => r.body.taskId));
    expect(ids.size).toBe(1);
    const [taskId] = [...ids] as string[];
    expect((await api.untilSettled(a, 'image', taskId)).at(-1)!.status).toBe('completed');
    const replay = await api.submit(a, 'image', body, { 'Idempotency-Key': key });
    expect(replay.body).toMatchObject({ taskId, idempotentReplay: true });
    expect(await stack.db.task.count({ where: { accountId: a.accountId } })).toBe(1);
    const ledger = await ledgerOf(a.accountId);
    expect(ledger.charges).toHaveLength(1);
    expect(await balanceOf(a)).toBe(10_000 - (await costOf(taskId)));
  });

  it('concurrent submits racing on the in-progress limit: exactly the limit is accepted', async () => {
    const a = await api.newAccount(10_000, 3);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => api.submit(a, 'image', { model: 'image-b-2.5', prompt: `slow ${i} #sim:delay=1500` })),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([...Array(3).fill(200), ...Array(7).fill(429)]);
    for (const r of answers.filter((x) => x.status === 200)) {
      expect((await api.untilSettled(a, 'image', String(r.body.taskId))).at(-1)!.status).toBe('completed');
    }
    expect((await ledgerOf(a.accountId)).charges).toHaveLength(3);
  });

  it('a failed render is refunded once; a render that never ends is failed by the timeout sweep and refunded', async () => {
    const before = await balanceOf(account);
    const failed = await api.submit(account, 'image', { model: 'image-b-2.5', prompt: 'no luck #sim:fail' });
    const hung = await api.submit(account, 'video', { model: 'video-a-h3', prompt: 'forever #sim:hang', duration: 2, resolution: '480p' });
    const f = (await api.untilSettled(account, 'image', String(failed.body.taskId))).at(-1)!;
    expect(f).toMatchObject({ status: 'failed', errorCode: 'generation_failed' });
    const h = (await api.untilSettled(account, 'video', String(hung.body.taskId), 20_000)).at(-1)!;
    expect(h).toMatchObject({ status: 'failed', errorCode: 'timeout' });
    for (const id of [failed.body.taskId, hung.body.taskId]) {
      const rows = await stack.db.ledgerEntry.findMany({ where: { taskId: String(id) }, orderBy: { createdAt: 'asc' } });
      expect(rows.map((r) => r.kind)).toEqual(['charge', 'refund']);
    }
    expect(await balanceOf(account)).toBe(before);
  });

  it('the task listing pages through every task once (keyset cursor on timestamps, server not in UTC)', async () => {
    const all = (await api.listTasks(account, 'limit=100')).body.data.map((t) => t.taskId);
    expect(all.length).toBeGreaterThan(4);
    const paged: unknown[] = [];
    let cursor: string | null = null;
    do {
      const res: Awaited<ReturnType<typeof api.listTasks>> = await api.listTasks(account, `limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      paged.push(...res.body.data.map((t) => t.taskId));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(paged).toEqual(all);
    // The timestamps the API shows are the stored instants, in UTC, whatever the session's zone.
    const newest = (await api.listTasks(account, 'limit=1')).body.data[0];
    const stored = await stack.db.task.findUniqueOrThrow({ where: { id: String(newest.taskId) }, select: { createdAt: true } });
    expect(newest.createdAt).toBe(stored.createdAt.toISOString());
  });

  it('Postgres saw no more server connections for the database than the pool size', async () => {
    const n = await onTestServer(async (c) => {
      const r = await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1`, [dbName]);
      return r.rows[0].n;
    });
    expect(n).toBeGreaterThan(0);
    expect(n).toBeLessThanOrEqual(POOL_SIZE);
  });

  it('no process logged an error: the maintenance jobs ran through PgBouncer too', () => {
    for (const p of stack.procs) {
      const errors = fs.readFileSync(p.logFile, 'utf8').split('\n').filter((l) => /"level":(50|60)\b/.test(l));
      expect({ process: p.name, errors }).toEqual({ process: p.name, errors: [] });
    }
  });
});
