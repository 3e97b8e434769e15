// Money races at the database boundary: the reason of a refused submit comes from
// the state that refused it; an idempotency claim is "still mine" or nothing; staleness uses the
// database clock on any server time zone; balances cannot overflow.
import { randomUUID } from 'node:crypto';
import { createDb, Db } from '../src/client';
import { newId } from '../src/ids';
import { sql } from '../src/sql';
import { waitFor } from '../../../test/e2e/support/wait';
import { claimIdempotencyKey, releaseIdempotencyKey } from '../src/idempotency';
import { ClaimLost, createTaskWithCharge, creditAccount, ledgerDiscrepancies, MAX_BALANCE_CENTS, NewTask, SubmitRefused } from '../src/billing';
import { completeTask, failTask } from '../src/settlement';
import { createTestSchema, createTimeZoneDatabase, TestDatabase, TestSchema, withSessionSetting } from '../src/test-schema';

async function newAccount(db: Db, balanceCents: number, maxConcurrentTasks = 20): Promise<string> {
  const id = newId('acc');
  await db.account.create({ data: { id, name: 't', maxConcurrentTasks } });
  if (balanceCents > 0) await creditAccount(db, id, balanceCents, 'test');
  return id;
}

const task = (accountId: string, extra: Partial<NewTask> = {}): NewTask => ({
  taskId: randomUUID(),
  accountId,
  type: 'image',
  model: 'image-b-2.5',
  params: {},
  costCents: 3,
  costMicros: 30_000n,
  billedSeconds: null,
  deadlineAt: new Date(Date.now() + 60_000),
  ...extra,
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The database's clock (what staleness is measured with), in epoch milliseconds. */
const dbClockMs = async (db: Db) => (await sql<{ ms: number }>(db, 'SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms')).rows[0].ms;
/** Waits on the condition (the database's clock passing `ms`), not a guess of how long that takes. */
const dbClockPast = (db: Db, ms: number) => waitFor(async () => (await dbClockMs(db)) > ms, 10_000, 'the database clock');

async function charges(db: Db, accountId: string): Promise<number> {
  return db.ledgerEntry.count({ where: { accountId, kind: 'charge' } });
}

describe('on the shared test database', () => {
  let schema: TestSchema;
  let db: Db;
  beforeAll(async () => {
    schema = await createTestSchema('money');
    db = createDb(schema.url, { poolSize: 30 });
  });
  afterAll(async () => {
    expect(await ledgerDiscrepancies(db)).toEqual([]);
    await db.$disconnect();
    await schema.drop();
  });

  it('a submit refused at the in-progress limit while tasks end is never a 402 while the balance covers it', async () => {
    const accountId = await newAccount(db, 1_000_000, 5);
    const running: string[] = [];
    const refusals: SubmitRefused[] = [];
    for (let round = 0; round < 40; round++) {
      // Tasks end (the slots free up) while more submits than the limit race for them.
      const ending = running.splice(0, running.length);
      await Promise.all([
        ...ending.map((id) => completeTask(db, id, ['u'])),
        ...Array.from({ length: 12 }, async () => {
          const t = task(accountId);
          try {
            await createTaskWithCharge(db, t);
            running.push(t.taskId);
          } catch (e) {
            if (!(e instanceof SubmitRefused)) throw e;
            refusals.push(e);
          }
        }),
      ]);
    }
    expect(refusals.length).toBeGreaterThan(100);
    expect(refusals.filter((r) => r.reason === 'insufficient_balance')).toEqual([]);
    // The reported numbers are the ones the gate refused on.
    for (const r of refusals) expect(r.tasksInProgress).toBeGreaterThanOrEqual(r.maxConcurrentTasks);
    const acc = await db.account.findUniqueOrThrow({ where: { id: accountId } });
    expect(acc.tasksInProgress).toBe(running.length);
  });

  it('a real shortfall is still a 402 with the balance the gate saw', async () => {
    const accountId = await newAccount(db, 2);
    await expect(createTaskWithCharge(db, task(accountId))).rejects.toMatchObject({ reason: 'insufficient_balance', balanceCents: 2 });
  });

  it('a refund on a balance near 2^31-1 cents settles (64-bit balances), and top-ups stop at MAX_BALANCE_CENTS', async () => {
    const accountId = await newAccount(db, 2_147_483_000);
    const t = task(accountId, { costCents: 600 });
    await createTaskWithCharge(db, t);
    expect(await creditAccount(db, accountId, 1_000, 'fill up')).toEqual({ balanceCents: 2_147_483_400 });
    // The refund takes the balance past 2^31-1: with 32-bit columns this threw, for ever, in every sweep.
    expect(await failTask(db, t.taskId, { errorCode: 'timeout', errorMessage: 'x', retryable: true })).toBe(true);
    expect(Number((await db.account.findUniqueOrThrow({ where: { id: accountId } })).balanceCents)).toBe(2_147_484_000);
    const rich = await newAccount(db, MAX_BALANCE_CENTS - 5);
    expect(await creditAccount(db, rich, 5, 'to the maximum')).toEqual({ balanceCents: MAX_BALANCE_CENTS });
    expect(await creditAccount(db, rich, 1, 'one more cent')).toEqual({ refused: 'above_maximum' });
    expect(Number((await db.account.findUniqueOrThrow({ where: { id: rich } })).balanceCents)).toBe(MAX_BALANCE_CENTS);
    expect(Number.isSafeInteger(MAX_BALANCE_CENTS * 2)).toBe(true);
  });
});

// Staleness by the database clock on servers in three time zones, and on sessions that set their own.
type Setup = { name: string; open(): Promise<{ url: string; close(): Promise<void> }> };
const onDatabase = (tz: string): Setup => ({
  name: `a database whose TimeZone is ${tz}`,
  async open() {
    const d: TestDatabase = await createTimeZoneDatabase(tz);
    const s = await createTestSchema('idemtz', { baseUrl: d.url });
    return { url: s.url, close: () => d.drop() };
  },
});
const onSession = (tz: string): Setup => ({
  name: `sessions that set TimeZone=${tz} themselves`,
  async open() {
    const s = await createTestSchema('idemsess');
    return { url: withSessionSetting(s.url, 'TimeZone', tz), close: () => s.drop() };
  },
});

describe.each([onDatabase('America/New_York'), onDatabase('Asia/Tokyo'), onSession('America/New_York'), onSession('Asia/Tokyo')])('idempotency staleness on $name', (setup) => {
  let db: Db;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const o = await setup.open();
    close = o.close;
    db = createDb(o.url, { poolSize: 25 });
  });
  afterAll(async () => {
    expect(await ledgerDiscrepancies(db)).toEqual([]);
    await db.$disconnect();
    await close();
  });

  it('20 concurrent submits with one id: one claim, one task, one charge', async () => {
    const accountId = await newAccount(db, 10_000);
    const results = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const claim = await claimIdempotencyKey(db, accountId, 'order-1', 'fp');
        if (!claim.claimed) return 'in-progress';
        await sleep(50); // the slow part of a submit (media inspection)
        await createTaskWithCharge(db, task(accountId, { idempotencyKey: 'order-1', claimToken: claim.token }));
        return 'created';
      }),
    );
    expect(results.filter((r) => r === 'created')).toHaveLength(1);
    expect(await charges(db, accountId)).toBe(1);
  });

  it('a claim is stale only by the database clock: fresh ones block, dead ones free the id after the stale time', async () => {
    const accountId = await newAccount(db, 10_000);
    const first = await claimIdempotencyKey(db, accountId, 'k', 'fp', 1_000);
    expect(first.claimed).toBe(true);
    const claimedBy = await dbClockMs(db);
    expect(await claimIdempotencyKey(db, accountId, 'k', 'fp', 1_000)).toEqual({ claimed: false, fingerprint: 'fp', taskId: null });
    await dbClockPast(db, claimedBy + 1_000);
    expect((await claimIdempotencyKey(db, accountId, 'k', 'fp', 1_000)).claimed).toBe(true);
  });

  it('a slow first request whose claim was taken over creates nothing and releases nothing ("still my claim")', async () => {
    const accountId = await newAccount(db, 10_000);
    const a = await claimIdempotencyKey(db, accountId, 'slow', 'fp', 200);
    if (!a.claimed) throw new Error('first claim refused');
    // Request A stalls (pool wait, slow reference) past the stale time, by the database's clock.
    await dbClockPast(db, (await dbClockMs(db)) + 200);
    const b = await claimIdempotencyKey(db, accountId, 'slow', 'fp', 200);
    if (!b.claimed) throw new Error('takeover refused');
    // A wakes up: its charge must not commit, and its release must not delete B's claim.
    await expect(createTaskWithCharge(db, task(accountId, { idempotencyKey: 'slow', claimToken: a.token }))).rejects.toBeInstanceOf(ClaimLost);
    expect(await releaseIdempotencyKey(db, accountId, 'slow', a.token)).toBe(false);
    // (Checked with the default stale time: B's own claim must not look stale on a slow machine.)
    expect(await claimIdempotencyKey(db, accountId, 'slow', 'fp')).toMatchObject({ claimed: false, taskId: null });
    const tb = task(accountId, { idempotencyKey: 'slow', claimToken: b.token });
    await createTaskWithCharge(db, tb);
    expect(await claimIdempotencyKey(db, accountId, 'slow', 'fp')).toMatchObject({ claimed: false, taskId: tb.taskId });
    expect(await charges(db, accountId)).toBe(1);
    expect(Number((await db.account.findUniqueOrThrow({ where: { id: accountId } })).balanceCents)).toBe(10_000 - 3);
  });
});
