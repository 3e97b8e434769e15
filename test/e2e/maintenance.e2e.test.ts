// The housekeeping jobs: a short TASK_TIMEOUT_MS fails a render that never finishes, and the
// reconciler re-enqueues a committed task whose job Redis lost.
import { createTaskQueue, createProducerRedis, QUEUES } from '@mediagen/queue';
import { Account, apiClient } from './support/api';
import { stopProcess } from './support/processes';
import type { Stack } from './support/stack';
import { e2eSuite } from './support/suite';
import { eventually } from './support/wait';

jest.setTimeout(60_000);

let stack: Stack;
let api: ReturnType<typeof apiClient>;
let account: Account;

e2eSuite('maint', { stack: { env: { TASK_TIMEOUT_MS: '4000' } } }, (s) => ({ stack, api, account } = s));

it('a render with no result within TASK_TIMEOUT_MS fails with timeout and is refunded', async () => {
  const res = await api.submit(account, 'video', { model: 'video-c-3.1', prompt: 'an endless loop #sim:hang' });
  const taskId = String(res.body.taskId);
  const seen = await api.untilSettled(account, 'video', taskId, 15_000);
  expect(seen.some((b) => b.status === 'processing')).toBe(true);
  expect(seen.at(-1)).toEqual({ status: 'failed', errorCode: 'timeout', retryable: true, errorMessage: expect.stringMatching(/4 seconds/), type: 'video' });
  const task = await stack.db.task.findUniqueOrThrow({ where: { id: taskId } });
  expect(task.finishedAt!.getTime()).toBeGreaterThanOrEqual(task.deadlineAt.getTime());
  expect(task.finishedAt!.getTime() - task.deadlineAt.getTime()).toBeLessThan(2_000);
  const ledger = await stack.db.ledgerEntry.findMany({ where: { taskId }, orderBy: { createdAt: 'asc' } });
  expect(ledger.map((l) => [l.kind, Number(l.amountCents)])).toEqual([['charge', -task.costCents], ['refund', task.costCents]]);
  expect(await stack.db.taskAttempt.findFirst({ where: { taskId } })).toMatchObject({ status: 'abandoned' });
});

it('a pending task whose job was lost (Redis emptied after the commit) is re-enqueued and completes', async () => {
  // Stop the worker so the job is still waiting when Redis "restarts".
  await Promise.all(stack.workers.map((w) => stopProcess(w)));
  const res = await api.submit(account, 'image', { model: 'image-a-5.0', prompt: 'a lost job #sim:delay=200' });
  const taskId = String(res.body.taskId);
  // This stack's 4 s TASK_TIMEOUT_MS is for the test above; on a loaded machine a worker start plus
  // a reconcile pass can take longer, and this test is about the lost job, not the deadline.
  await stack.db.task.update({ where: { id: taskId }, data: { deadlineAt: new Date(Date.now() + 3_600_000) } });
  const redis = createProducerRedis(stack.env.REDIS_URL);
  const queue = createTaskQueue(redis, stack.prefix);
  expect(await queue.getJob(taskId)).toBeDefined();
  // Everything of this deployment in Redis is gone, as after a restart without persistence.
  const keys = await stack.redis.keys(`${stack.prefix}:*`);
  if (keys.length) await stack.redis.del(...keys);
  expect(await queue.getJob(taskId)).toBeUndefined();

  await stack.startWorker();
  const last = (await api.untilSettled(account, 'image', taskId, 15_000)).at(-1)!;
  expect(last.status).toBe('completed');
  await eventually('the reconciler to leave the job for the task', async () => (await stack.redis.exists(`${stack.prefix}:${QUEUES.tasks}:${taskId}`)) === 1);
  expect((await api.simTask(taskId)).renders).toHaveLength(1);
  await queue.close();
  redis.disconnect();
});
