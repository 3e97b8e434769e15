// wakeTask on the real Redis: an upstream callback promotes a task's delayed job without waiting
// for the reply to the wake check (the job can be taken by a worker one round trip after the
// callback), and a promoted job is not also flagged (no extra poll at its next step's end).
import { randomUUID } from 'node:crypto';
import IORedis from 'ioredis';
import { createTaskQueue, deleteKeysWithPrefix, JOBS, TaskQueue, wakeRedis, WakeRedis, wakeTask } from '../src';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-wake-${randomUUID().slice(0, 8)}`;

let redis: IORedis;
let queue: TaskQueue;
beforeAll(async () => {
  redis = new IORedis(REDIS_URL, { maxRetriesPerRequest: null });
  wakeRedis(redis); // before the connection's first command, as the gateway defines it
  queue = createTaskQueue(redis, prefix);
});
afterAll(async () => {
  await queue.close();
  await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

async function until(what: string, cond: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const flagged = (taskId: string) => redis.exists(`${prefix}:wake:${taskId}`);

it('promotes a delayed job without waiting for the check\'s reply, and leaves no flag', async () => {
  const taskId = randomUUID();
  await queue.add(JOBS.runTask, { taskId, step: 'poll', transientErrors: 0 }, { jobId: taskId, delay: 3_600_000 });
  // The check is sent at once; only its reply is held back until `release`.
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const held = new Proxy(redis, {
    get(target, prop, receiver) {
      if (prop === 'wakeCheck')
        return (...args: unknown[]) => { const sent = (target as unknown as WakeRedis).wakeCheck(...(args as Parameters<WakeRedis['wakeCheck']>)); return gate.then(() => sent); };
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  }) as unknown as WakeRedis;

  const waking = wakeTask(queue, held, taskId);
  try {
    await until('the job promoted', async () => (await (await queue.getJob(taskId))!.getState()) === 'waiting');
  } finally {
    release();
  }
  expect(await waking).toBe(true);
  expect(await flagged(taskId)).toBe(0);
});

it('flags a job that is not delayed and does not move it', async () => {
  const taskId = randomUUID();
  await queue.add(JOBS.runTask, { taskId, step: 'poll', transientErrors: 0 }, { jobId: taskId });
  expect(await wakeTask(queue, redis as unknown as WakeRedis, taskId)).toBe(false);
  expect(await (await queue.getJob(taskId))!.getState()).toBe('waiting');
  expect(await flagged(taskId)).toBe(1);
});
