// Through the worker: one customer's prompts that the cheapest channel refuses
// (a channel that does not report violations, so each refusal is a plain failed render) must not
// take that channel out of rotation for every other tenant.
import { randomUUID } from 'node:crypto';
import { createTaskWithCharge, creditAccount, ledgerDiscrepancies, newId } from '@mediagen/db';
import { enqueueTask } from '@mediagen/queue';
import { InProcess, startInProcess } from './in-process';

jest.setTimeout(30_000);

let w: InProcess;
beforeAll(async () => {
  w = await startInProcess(
    (base) => ({
      channels: [
        { id: 'cheap', baseUrl: `${base}/ch/cheap`, apiKey: 'k', costOrder: 1, reportsViolations: false, models: { 'video-a-h3': 'm' }, poll: { firstMs: 30, minMs: 30, maxMs: 100 } },
      ],
    }),
    { CHANNEL_BREAKER_FAILURES: '3', CHANNEL_BREAKER_WINDOW_MS: '60000', CHANNEL_BREAKER_COOLDOWN_MS: '60000' },
  );
});
afterAll(async () => {
  expect(await ledgerDiscrepancies(w.db)).toEqual([]);
  await w.stop();
});

async function submitAs(accountId: string, prompt: string): Promise<string> {
  const taskId = randomUUID();
  const spec = { type: 'video', model: 'video-a-h3', prompt, duration: 2, ratio: '16:9', resolution: '480p', tier: null, variant: null, refMode: null,
    effort: null, seed: null, optimizePrompt: null, media: [], firstFrame: null, lastFrame: null, outputSeconds: 2 };
  await createTaskWithCharge(w.db, { taskId, accountId, type: 'video', model: 'video-a-h3', params: spec, costCents: 7, costMicros: 70_000n, billedSeconds: 2, deadlineAt: new Date(Date.now() + 600_000) });
  await enqueueTask(w.queue, taskId);
  return taskId;
}

it("six refused prompts of one account leave the channel closed; another tenant's task still runs on it", async () => {
  const failing = await Promise.all(Array.from({ length: 6 }, (_, i) => w.submit(`forbidden ${i} #sim:fail`)));
  for (const id of failing) expect(await w.settled(id)).toMatchObject({ status: 'failed', errorCode: 'generation_failed' });
  const other = newId('acc');
  await w.db.account.create({ data: { id: other, name: 'other tenant' } });
  await creditAccount(w.db, other, 1_000, 'test');
  const taskId = await submitAs(other, 'a calm sea');
  expect(await w.settled(taskId)).toMatchObject({ status: 'completed' });
  // (The attempt row is closed just after the task settles: compare the channel only.)
  expect(await w.db.taskAttempt.findMany({ where: { taskId }, select: { channelId: true } })).toEqual([{ channelId: 'cheap' }]);
  expect((await w.app.ctx.health.admit('cheap', 'probe-check')).admission).toBe('closed');
});
