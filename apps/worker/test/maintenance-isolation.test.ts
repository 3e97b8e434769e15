// One task whose settlement throws must not stop the timeout sweep for the
// others. A trigger makes one task's settlement fail for ever (as a refund overflowing a 32-bit
// balance did); the tasks behind it in the same batch still time out and are refunded.
import { randomUUID } from 'node:crypto';
import { createTaskWithCharge, ledgerDiscrepancies } from '@mediagen/db';
import { InProcess, startInProcess } from './in-process';

jest.setTimeout(30_000);

let w: InProcess;
beforeAll(async () => {
  w = await startInProcess((base) => ({
    channels: [{ id: 'only', baseUrl: `${base}/ch/only`, apiKey: 'k', costOrder: 1, models: { 'video-a-h3': 'm' } }],
    // The reconciler would otherwise re-enqueue these job-less tasks and their jobs time them out.
  }), { RECONCILE_GRACE_MS: '600000' });
});
afterAll(async () => {
  expect(await ledgerDiscrepancies(w.db)).toEqual([]);
  await w.stop();
});

it('a poison task is skipped; every other task past its deadline times out and is refunded', async () => {
  const overdue = async (minutesAgo: number, taskId = randomUUID()) => {
    await createTaskWithCharge(w.db, {
      taskId, accountId: w.accountId, type: 'video', model: 'video-a-h3', params: {}, costCents: 7, costMicros: 70_000n, billedSeconds: 2,
      deadlineAt: new Date(Date.now() - minutesAgo * 60_000),
    });
    return taskId;
  };
  // The trigger exists before the task does: a sweep running in between (every 500 ms) would
  // otherwise settle the poison task before it is poisoned.
  const poison = randomUUID();
  await w.db.$executeRawUnsafe(`
    CREATE FUNCTION refuse_poison() RETURNS trigger AS $$
    BEGIN
      IF NEW."id" = '${poison}' AND NEW."status" = 'failed' THEN RAISE EXCEPTION 'integer out of range'; END IF;
      RETURN NEW;
    END $$ LANGUAGE plpgsql`);
  await w.db.$executeRawUnsafe(`CREATE TRIGGER refuse_poison BEFORE UPDATE ON "Task" FOR EACH ROW EXECUTE FUNCTION refuse_poison()`);
  // The poison task is the most overdue: the sweep meets it first.
  await overdue(10, poison);
  const others = [await overdue(5), await overdue(4), await overdue(3)];

  const settled = await Promise.all(others.map((id) => w.settled(id, 10_000)));
  expect(settled.map((t) => [t.status, t.errorCode])).toEqual(others.map(() => ['failed', 'timeout']));
  expect(await w.db.ledgerEntry.count({ where: { taskId: { in: others }, kind: 'refund' } })).toBe(3);
  expect((await w.db.task.findUniqueOrThrow({ where: { id: poison } })).status).toBe('pending');
  // Once the poison is cured, the next run settles it too.
  await w.db.$executeRawUnsafe('DROP TRIGGER refuse_poison ON "Task"');
  expect(await w.settled(poison, 10_000)).toMatchObject({ status: 'failed', errorCode: 'timeout' });
});
