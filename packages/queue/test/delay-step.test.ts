// delayStep on the real Redis, through a real BullMQ worker: a running step's job goes to the
// delayed set with its new data and, for polls, RUNNING_TASK_PRIORITY, in one script; the job read
// back from Redis carries both, and once promoted it waits behind an unprioritized new task.
import { randomUUID } from 'node:crypto';
import IORedis from 'ioredis';
import { DelayedError, Job, Worker } from 'bullmq';
import { createTaskQueue, deleteKeysWithPrefix, delayStep, enqueueTask, JOBS, queuePrefix, QUEUES, RUNNING_TASK_PRIORITY, RunTaskPayload, TaskQueue } from '../src';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-delay-step-${randomUUID().slice(0, 8)}`;

let redis: IORedis;
let queue: TaskQueue;
let worker: Worker<RunTaskPayload> | null = null;
beforeAll(async () => {
  redis = new IORedis(REDIS_URL, { maxRetriesPerRequest: null });
  queue = createTaskQueue(redis, prefix);
});
afterEach(async () => {
  await worker?.close();
  worker = null;
});
afterAll(async () => {
  await queue.close();
  await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

/** Runs `step` as the processor of the next job taken, and resolves with what it returned or threw. */
function runOnce(step: (job: Job<RunTaskPayload>, token: string | undefined) => Promise<void>): Promise<unknown> {
  return new Promise((resolve) => {
    let taken = false;
    worker = new Worker<RunTaskPayload>(
      QUEUES.tasks,
      async (job, token) => {
        if (taken) throw new DelayedError(); // only the first job is this test's
        taken = true;
        try {
          await step(job, token);
          resolve('returned');
        } catch (err) {
          resolve(err);
        }
        throw new DelayedError();
      },
      { connection: redis, prefix: queuePrefix(redis, prefix), concurrency: 1 },
    );
  });
}

it('moves the running job to the delayed set with its new data and priority in one script', async () => {
  const taskId = randomUUID();
  await enqueueTask(queue, taskId, 'req-1');
  const next: RunTaskPayload = { taskId, step: 'poll', transientErrors: 0, requestId: 'req-1', poll: { attemptId: 'att_1', channelId: 'ch', upstreamId: 'up-1', accountId: 'acc_1' } };
  const commands: string[] = [];
  const outcome = await runOnce(async (job, token) => {
    // Count the commands the step sends: the worker's command connection is `redis` (a connection
    // handed to BullMQ is used as it is; only the blocking one is a duplicate).
    const send = redis.sendCommand.bind(redis);
    redis.sendCommand = ((cmd: { name: string }) => (commands.push(cmd.name), send(cmd as never))) as typeof redis.sendCommand;
    try {
      await delayStep(job, Date.now() + 3_600_000, token, next, RUNNING_TASK_PRIORITY);
    } finally {
      redis.sendCommand = send;
    }
    expect(job.data).toEqual(next);
    expect(job.priority).toBe(RUNNING_TASK_PRIORITY);
  });
  expect(outcome).toBe('returned');
  await worker!.close();
  worker = null;
  // One script (EVALSHA, and EVAL once should the server not hold it yet); it was three.
  expect(commands.filter((c) => c !== 'eval')).toEqual(['evalsha']);

  const stored = await queue.getJob(taskId);
  expect(await stored!.getState()).toBe('delayed');
  expect(stored!.data).toEqual(next);
  expect(stored!.priority).toBe(RUNNING_TASK_PRIORITY);

  // Promoted (an upstream callback), it joins the prioritized jobs, behind a new task's first step.
  const fresh = randomUUID();
  await enqueueTask(queue, fresh);
  await stored!.promote();
  expect(await redis.zscore(queue.keys.prioritized, taskId)).not.toBeNull();
  const order: string[] = [];
  await new Promise<void>((resolve) => {
    worker = new Worker<RunTaskPayload>(
      QUEUES.tasks,
      async (job) => {
        order.push(job.data.taskId);
        if (order.length === 2) resolve();
        return 'done';
      },
      { connection: redis, prefix: queuePrefix(redis, prefix), concurrency: 1 },
    );
  });
  expect(order).toEqual([fresh, taskId]);
});

it('leaves a job it does not hold the lock of where it is', async () => {
  const taskId = randomUUID();
  await queue.add(JOBS.runTask, { taskId, step: 'submit', transientErrors: 0 }, { jobId: taskId });
  const outcome = await runOnce(async (job) => {
    await delayStep(job, Date.now() + 60_000, 'not-the-token', { taskId, step: 'poll', transientErrors: 0 }, RUNNING_TASK_PRIORITY);
  });
  expect(outcome).toBeInstanceOf(Error);
  const stored = await queue.getJob(taskId);
  expect(await stored!.getState()).toBe('active');
  expect(stored!.data).toEqual({ taskId, step: 'submit', transientErrors: 0 });
});
