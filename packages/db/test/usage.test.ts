// The usage page's sums (usageByDayAndModel) come from SpendDay, kept by the charge and refund
// transactions: they must equal what the ledger says, per UTC day and model.
import { createDb, Db } from '../src/client';
import { newId } from '../src/ids';
import { createTestSchema, TestSchema } from '../src/test-schema';
import { createTaskWithCharge } from '../src/billing';
import { completeTask, failTask, markProcessing } from '../src/settlement';
import { usageByDayAndModel } from '../src/holder-queries';
import { sql } from '../src/sql';

let schema: TestSchema;
let db: Db;

beforeAll(async () => {
  schema = await createTestSchema('usage');
  db = createDb(schema.url, { poolSize: 5 });
});
afterAll(async () => {
  await db.$disconnect();
  await schema.drop();
});

/** The page's previous query: the account's ledger joined to its tasks, over the same days. */
async function fromLedger(accountId: string, days: number) {
  const { rows } = await sql<{ day: string; model: string; cents: string; tasks: number }>(
    db,
    `SELECT to_char(l."createdAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS "day", t."model",
            -sum(l."amountCents") AS "cents", count(*) FILTER (WHERE l."kind" = 'charge')::int AS "tasks"
       FROM "LedgerEntry" l JOIN "Task" t ON t."id" = l."taskId"
      WHERE l."accountId" = $1 AND l."createdAt" >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - make_interval(days => $2 - 1)
        AND l."kind" IN ('charge', 'refund')
      GROUP BY 1, 2 ORDER BY 1, 2`,
    [accountId, days],
  );
  return rows.map((r) => ({ day: r.day, model: r.model, cents: Number(r.cents), tasks: r.tasks }));
}

async function submit(accountId: string, model: string, costCents: number): Promise<string> {
  const taskId = newId();
  await createTaskWithCharge(db, {
    taskId, accountId, type: 'image', model, params: {}, costCents, costMicros: BigInt(costCents * 10_000), billedSeconds: null,
    deadlineAt: new Date(Date.now() + 60_000),
  });
  return taskId;
}

describe('usageByDayAndModel', () => {
  it('sums charges net of refunds per day and model, as the ledger does, and only for the account', async () => {
    const accountId = newId('acc');
    const other = newId('acc');
    for (const id of [accountId, other]) await db.account.create({ data: { id, name: 't', balanceCents: 10_000, maxConcurrentTasks: 50 } });
    const a1 = await submit(accountId, 'image-b-2.5', 4);
    const a2 = await submit(accountId, 'image-b-2.5', 4);
    const b1 = await submit(accountId, 'video-a-h3', 30);
    await submit(other, 'image-b-2.5', 9);
    await completeTask(db, a1, ['http://x/1.png']);
    await markProcessing(db, a2);
    await failTask(db, a2, { errorCode: 'generation_failed', errorMessage: 'no', retryable: true });
    await failTask(db, b1, { errorCode: 'timeout', errorMessage: 'no', retryable: true });

    const today = new Date().toISOString().slice(0, 10);
    const got = await usageByDayAndModel(db, accountId, 30);
    expect(got).toEqual([
      { day: today, model: 'image-b-2.5', cents: 4, tasks: 2 },
      { day: today, model: 'video-a-h3', cents: 0, tasks: 1 },
    ]);
    expect(got).toEqual(await fromLedger(accountId, 30));
    expect(await usageByDayAndModel(db, other, 30)).toEqual([{ day: today, model: 'image-b-2.5', cents: 9, tasks: 1 }]);

    // Days outside the window are not read.
    await sql(db, `INSERT INTO "SpendDay" ("accountId", "day", "model", "cents", "tasks") VALUES ($1, (now() AT TIME ZONE 'UTC')::date - 30, 'old', 5, 1)`, [accountId]);
    expect((await usageByDayAndModel(db, accountId, 30)).map((r) => r.model)).not.toContain('old');
    expect((await usageByDayAndModel(db, accountId, 31)).map((r) => r.model)).toContain('old');
  });
});
