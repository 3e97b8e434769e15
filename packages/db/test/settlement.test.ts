import { createDb, Db } from '../src/client';
import { newId } from '../src/ids';
import { createTestSchema, TestSchema } from '../src/test-schema';
import { completeTask, failTask, markProcessing, RETRYABLE, updateProgress } from '../src/settlement';

let schema: TestSchema;
let db: Db;

beforeAll(async () => {
  schema = await createTestSchema('settle');
  db = createDb(schema.url, { poolSize: 20 });
});
afterAll(async () => {
  await db.$disconnect();
  await schema.drop();
});

/** An account charged for `n` tasks, as the gateway leaves it after submits. */
async function chargedTasks(n: number, costCents = 37): Promise<{ accountId: string; taskIds: string[] }> {
  const accountId = newId('acc');
  const taskIds = Array.from({ length: n }, () => newId());
  await db.$transaction([
    db.account.create({ data: { id: accountId, name: 't', balanceCents: 1000 - n * costCents, tasksInProgress: n } }),
    db.ledgerEntry.create({ data: { id: newId('led'), accountId, kind: 'topup', amountCents: 1000 } }),
    ...taskIds.flatMap((id) => [
      db.task.create({
        data: { id, accountId, type: 'video', model: 'video-a-h3', params: {}, costCents, costMicros: BigInt(costCents * 10_000), deadlineAt: new Date(Date.now() + 60_000) },
      }),
      db.ledgerEntry.create({ data: { id: newId('led'), accountId, taskId: id, kind: 'charge', amountCents: -costCents } }),
    ]),
  ]);
  return { accountId, taskIds };
}

async function expectLedgerInvariant(accountId: string): Promise<void> {
  const acc = await db.account.findUniqueOrThrow({ where: { id: accountId } });
  const sum = await db.ledgerEntry.aggregate({ where: { accountId }, _sum: { amountCents: true } });
  expect(acc.balanceCents).toBe(sum._sum.amountCents); // both BIGINT
}

const failure = { errorCode: 'generation_failed', errorMessage: 'The provider could not generate it.', retryable: RETRYABLE.generation_failed } as const;

it('completes a task once, with result URLs, progress 100 and the in-progress slot released', async () => {
  const { accountId, taskIds: [id] } = await chargedTasks(1);
  expect(await markProcessing(db, id)).toBe(true);
  expect(await markProcessing(db, id)).toBe(false);
  expect(await completeTask(db, id, ['https://x/files/results/a/0.png'])).toBe(true);
  expect(await completeTask(db, id, ['https://x/other'])).toBe(false);
  expect(await failTask(db, id, failure)).toBe(false);
  const t = await db.task.findUniqueOrThrow({ where: { id } });
  expect(t).toMatchObject({ status: 'completed', progress: 100, resultUrls: ['https://x/files/results/a/0.png'], errorCode: null });
  expect(t.finishedAt).toBeInstanceOf(Date);
  const acc = await db.account.findUniqueOrThrow({ where: { id: accountId } });
  expect(acc).toMatchObject({ tasksInProgress: 0, balanceCents: BigInt(1000 - 37) });
  expect(await db.ledgerEntry.count({ where: { taskId: id, kind: 'refund' } })).toBe(0);
  await expectLedgerInvariant(accountId);
});

it('fails a task once and refunds its cost in the same transaction', async () => {
  const { accountId, taskIds: [id] } = await chargedTasks(1);
  expect(await failTask(db, id, { errorCode: 'content_violation', errorMessage: 'flagged', retryable: false })).toBe(true);
  expect(await failTask(db, id, failure)).toBe(false);
  expect(await completeTask(db, id, ['u'])).toBe(false);
  const t = await db.task.findUniqueOrThrow({ where: { id } });
  expect(t).toMatchObject({ status: 'failed', errorCode: 'content_violation', errorMessage: 'flagged', retryable: false, resultUrls: [] });
  const refunds = await db.ledgerEntry.findMany({ where: { taskId: id, kind: 'refund' } });
  expect(refunds).toHaveLength(1);
  expect(refunds[0]).toMatchObject({ accountId, amountCents: 37n });
  expect(await db.account.findUniqueOrThrow({ where: { id: accountId } })).toMatchObject({ balanceCents: 1000n, tasksInProgress: 0 });
  await expectLedgerInvariant(accountId);
});

it('lets exactly one of many racing settlements win, refunding at most once', async () => {
  const { accountId, taskIds } = await chargedTasks(10);
  const results = await Promise.all(
    taskIds.flatMap((id, i) => [
      failTask(db, id, failure),
      failTask(db, id, { ...failure, errorCode: 'timeout' }),
      i % 2 ? completeTask(db, id, ['u']) : failTask(db, id, failure),
      markProcessing(db, id).then(() => false),
    ]),
  );
  for (let i = 0; i < taskIds.length; i++) expect(results.slice(i * 4, i * 4 + 4).filter(Boolean)).toHaveLength(1);
  const failed = await db.task.count({ where: { accountId, status: 'failed' } });
  expect(await db.ledgerEntry.count({ where: { accountId, kind: 'refund' } })).toBe(failed);
  expect(await db.account.findUniqueOrThrow({ where: { id: accountId } })).toMatchObject({ tasksInProgress: 0 });
  await expectLedgerInvariant(accountId);
});

it('moves progress only forward, only while processing, and below 100', async () => {
  const { taskIds: [id] } = await chargedTasks(1);
  expect(await updateProgress(db, id, 10)).toBe(false); // still pending
  await markProcessing(db, id);
  expect(await updateProgress(db, id, 40)).toBe(true);
  expect(await updateProgress(db, id, 20)).toBe(false);
  expect(await updateProgress(db, id, 100)).toBe(true);
  expect((await db.task.findUniqueOrThrow({ where: { id } })).progress).toBe(99);
});
