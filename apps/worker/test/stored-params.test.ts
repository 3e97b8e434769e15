// The worker parses a task's stored params (packages/catalog stored-params.ts) instead of casting
// them: a row no release of ours would write fails at once, refunded, and nothing is sent upstream.
import { createTaskWithCharge, ledgerDiscrepancies, newId } from '@mediagen/db';
import { enqueueTask } from '@mediagen/queue';
import { InProcess, startInProcess } from './in-process';

jest.setTimeout(30_000);

let w: InProcess;
beforeAll(async () => {
  w = await startInProcess((base) => ({
    channels: [{ id: 'only', baseUrl: `${base}/ch/only`, apiKey: 'k', costOrder: 1, models: { 'video-a-h3': 'm' }, poll: { firstMs: 50, minMs: 50, maxMs: 200 } }],
  }));
});
afterAll(async () => {
  expect(await ledgerDiscrepancies(w.db)).toEqual([]);
  await w.stop();
});

it('a task whose stored params do not parse fails with generation_failed and a refund, without an upstream call', async () => {
  const before = (await w.db.account.findUniqueOrThrow({ where: { id: w.accountId } })).balanceCents;
  const taskId = newId();
  // A video spec without its media lists: casting it would crash (or send garbage) later.
  const params = { type: 'video', model: 'video-a-h3', prompt: 'a kite', duration: 2, ratio: '16:9', resolution: '480p' };
  await createTaskWithCharge(w.db, { taskId, accountId: w.accountId, type: 'video', model: 'video-a-h3', params, costCents: 7, costMicros: 70_000n,
    billedSeconds: 2, deadlineAt: new Date(Date.now() + 60_000) });
  await enqueueTask(w.queue, taskId);
  const t = await w.settled(taskId);
  expect(t).toMatchObject({ status: 'failed', errorCode: 'generation_failed' });
  expect((await w.db.account.findUniqueOrThrow({ where: { id: w.accountId } })).balanceCents).toBe(before);
  expect(await w.db.taskAttempt.count({ where: { taskId } })).toBe(0);
  expect(w.sim.totals.submits).toBe(0);
});

it('a well-formed task on the same worker still completes', async () => {
  expect(await w.settled(await w.submit('a kite'))).toMatchObject({ status: 'completed' });
});
