// The round trips of a task's steps, counted on the real Redis and Postgres (round-trips.ts): the
// step is run by hand on the worker's own context (its task worker and maintenance stopped, so
// nothing else talks meanwhile) against a MiniMax channel of the simulator. Each figure is what
// one step of that task sends; a change that adds a round trip to every step shows here.
import type { Redis } from 'ioredis';
import { runTaskPayloadSchema } from '@mediagen/queue';
import { advanceTask } from '../src/run-task';
import { InProcess, startInProcess } from './in-process';
import { countRoundTrips } from './round-trips';

jest.setTimeout(40_000);

let w: InProcess;
beforeAll(async () => {
  w = await startInProcess(
    (base) => ({
      channels: [{ id: 'mm', protocol: 'minimax', baseUrl: `${base}/minimax`, apiKey: 'mm-k', costOrder: 1, models: { 'video-a-h3': 'MiniMax-H3' }, poll: { firstMs: 50, minMs: 50, maxMs: 200 } }],
    }),
    { TASK_TIMEOUT_MS: '60000' },
  );
  // Only the steps the test runs talk to Redis and Postgres.
  w.app.maintenance.keeper.stop();
  await Promise.all([w.app.taskWorker.close(), w.app.maintenance.worker.close()]);
});
afterAll(async () => {
  await w?.stop();
});

const redisOf = () => w.app.ctx.redis as Redis;
const schemaOf = () => new URL(w.app.ctx.config.DATABASE_URL).searchParams.get('schema')!;
const step = (taskId: string, payload: Record<string, unknown> = { step: 'submit' }) =>
  countRoundTrips(redisOf(), () => advanceTask(w.app.ctx, runTaskPayloadSchema.parse({ taskId, transientErrors: 0, ...payload })));

beforeAll(async () => {
  // A first task warms the process: pooled connections open, the scripts loaded (a first EVALSHA
  // of a script Redis does not hold yet is answered NOSCRIPT and sent again as EVAL, once).
  await step(await w.submit('warm-up #sim:hang'));
});

it('the submit step of a new task: two Redis round trips and four SQL statements', async () => {
  const taskId = await w.submit('a lighthouse at dusk #sim:hang');
  const { result: next, trips } = await step(taskId);
  expect(next).toMatchObject({ step: 'poll' });
  // What choosing the channel reads, in one pipeline; the slot's script by its hash.
  expect(trips.redisCommands).toEqual(['hexists', 'smembers', 'hget', 'evalsha']);
  expect(trips.redisWrites).toBe(2);
  // The task and its attempt; the new attempt; its sent mark with the task's move to processing; the render's id.
  expect(trips.sql.map((q) => q.split(' ').slice(0, 2).join(' '))).toEqual(['SELECT t."id",', 'INSERT INTO', 'WITH started', 'WITH upd']);
  expect(await w.db.task.findUniqueOrThrow({ where: { id: taskId } })).toMatchObject({ status: 'processing', startedAt: expect.any(Date) });
  expect(await w.db.taskAttempt.findFirstOrThrow({ where: { taskId } })).toMatchObject({ status: 'running', upstreamId: expect.any(String), submitSentAt: expect.any(Date) });
});

it('the poll step of a running render: the task row and its progress, nothing of Redis', async () => {
  const running = await w.submit('a slow render #sim:hang');
  await step(running);
  const poll = await step(running, { step: 'poll' });
  expect(poll.result).toMatchObject({ step: 'poll' });
  expect(poll.trips.redisWrites).toBe(0);
  expect(poll.trips.sql.map((q) => q.split(' ').slice(0, 2).join(' '))).toEqual(['SELECT t."id",', 'UPDATE "' + schemaOf() + '"."Task"']);
});

it('the poll step that finds the render done: the task row, then one statement completes the task and closes the attempt', async () => {
  const taskId = await w.submit('a short render #sim:delay=40');
  await step(taskId);
  // Poll until the step that settles (the render ends 40 ms after its submit).
  let last = await step(taskId, { step: 'poll' });
  for (let n = 0; last.result !== null && n < 200; n++) {
    await new Promise((r) => setTimeout(r, 10));
    last = await step(taskId, { step: 'poll' });
  }
  expect(last.result).toBeNull();
  // The attempt's success, its usage, the task's completion, the attempt's close and (the task has
  // no webhook to send) its events' mark are one statement, one commit: before 2026-12-02 a success
  // mark, the completion, the close and the webhook outbox's mark were four.
  expect(last.trips.sql.map((q) => q.split(' ').slice(0, 2).join(' '))).toEqual(['SELECT t."id",', 'WITH att']);
  expect((await w.db.task.findUniqueOrThrow({ where: { id: taskId } })).eventsEmittedAt).toEqual(expect.any(Date));
  expect(await w.db.task.findUniqueOrThrow({ where: { id: taskId } })).toMatchObject({ status: 'completed', progress: 100, resultUrls: [expect.stringContaining(taskId)] });
  expect(await w.db.taskAttempt.findFirstOrThrow({ where: { taskId } })).toMatchObject({ status: 'completed', finishedAt: expect.any(Date), usageUnits: expect.any(String), usageAmount: expect.any(Number) });
});

it('counting a channel\'s renders in flight (polls of a channel with a status-call limit) is one round trip', async () => {
  const slots = w.app.ctx.slots;
  const channel = w.app.ctx.channels.channels[0];
  await slots.acquire(channel, 'lapsed', Date.now() - 1);
  await slots.acquire(channel, 'live', Date.now() + 60_000);
  const { result, trips } = await countRoundTrips(redisOf(), () => slots.inUse(channel.id));
  expect(trips.redisCommands).toEqual(['zremrangebyscore', 'zcard']);
  expect(trips.redisWrites).toBe(1);
  // Lapsed leases do not count; the tasks the earlier tests left running do.
  expect(result).toBe(1 + (await w.db.taskAttempt.count({ where: { status: 'running' } })));
});
