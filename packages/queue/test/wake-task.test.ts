// wakeTask on the real Redis: an upstream callback promotes a task's delayed job without waiting
// for the reply to the wake check (the job can be taken by a worker one round trip after the
// callback), and a promoted job is not also flagged (no extra poll at its next step's end).
import { randomUUID } from 'node:crypto';
import IORedis from 'ioredis';
import { createTaskQueue, deleteKeysWithPrefix, JOBS, MAX_CLAIMED_FILES, type RunTaskPayload, runTaskPayloadSchema, TaskQueue, wakeRedis, WakeRedis, wakeTask } from '../src';

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

describe('a callback\'s claim', () => {
  const claim = { upstreamId: 'cgt-2026-abc', urls: ['https://files.example/v/a.mp4?X-Sig=a%2Fb&e=1'] };
  // What a poll step leaves in its job: every kind of value our payloads hold, and text that a
  // JSON round trip through Redis's cjson must give back as it was (slashes, quotes, non-ASCII).
  const stepData = (taskId: string): RunTaskPayload => ({
    taskId, step: 'poll', transientErrors: 2, requestId: 'req/1 "quoted" é ✓',
    poll: { attemptId: 'att_1', channelId: 'ark', upstreamId: claim.upstreamId, accountId: 'acc_1', type: 'video' },
  });

  it('is written into the data of the delayed job it promotes, the rest of the data as it was', async () => {
    const taskId = randomUUID();
    await queue.add(JOBS.runTask, stepData(taskId), { jobId: taskId, delay: 3_600_000 });
    expect(await wakeTask(queue, redis as unknown as WakeRedis, taskId, claim)).toBe(true);
    const job = (await queue.getJob(taskId))!;
    expect(await job.getState()).toBe('waiting');
    expect(job.data).toEqual({ ...stepData(taskId), claim });
    expect(runTaskPayloadSchema.parse(job.data).claim).toEqual(claim);
  });

  it('is not written into a job that is not delayed (its running step rewrites the data), which is flagged instead', async () => {
    const taskId = randomUUID();
    await queue.add(JOBS.runTask, stepData(taskId), { jobId: taskId });
    expect(await wakeTask(queue, redis as unknown as WakeRedis, taskId, claim)).toBe(false);
    expect((await queue.getJob(taskId))!.data).toEqual(stepData(taskId));
    expect(await flagged(taskId)).toBe(1);
  });

  it('leaves data it cannot decode alone, and the job is still promoted', async () => {
    const taskId = randomUUID();
    await queue.add(JOBS.runTask, stepData(taskId), { jobId: taskId, delay: 3_600_000 });
    await redis.hset(queue.toKey(taskId), 'data', 'not json');
    expect(await wakeTask(queue, redis as unknown as WakeRedis, taskId, claim)).toBe(true);
    expect(await redis.hget(queue.toKey(taskId), 'data')).toBe('not json');
  });

  it('is only plain http(s) URLs within bounds: anything else does not parse, and a step ignores it', () => {
    const parse = (c: unknown) => runTaskPayloadSchema.parse({ taskId: 't', step: 'poll', transientErrors: 0, claim: c }).claim;
    expect(parse(claim)).toEqual(claim);
    for (const bad of [
      { ...claim, urls: ['file:///etc/passwd'] },
      { ...claim, urls: ['javascript:alert(1)'] },
      { ...claim, urls: [] },
      { ...claim, urls: Array.from({ length: MAX_CLAIMED_FILES + 1 }, (_, i) => `https://f.example/${i}`) },
      { ...claim, urls: [`https://f.example/${'a'.repeat(5000)}`] },
      { urls: claim.urls },
      'https://f.example/a.mp4',
    ])
      expect(parse(bad)).toBeUndefined();
  });
});
