// The attempt rows on the answers-at-once path, written with plain SQL on the pg pool: a racing
// start gets the first row back, a synchronous answer's id write (a compare-and-set) also records
// `succeeded` and the usage, keeping what it does not replace, and
// loadTask reads the types the worker relies on.
import { createDb, Db } from '../src/client';
import { newId } from '../src/ids';
import { createTestSchema } from '../src/test-schema';
import { loadTask, markSubmitSent, recordUpstreamId, recordUsage, startAttempt } from '../src/attempts';

let db: Db;
let drop: () => Promise<void>;
let accountId: string;

beforeAll(async () => {
  const schema = await createTestSchema('attempts');
  drop = schema.drop;
  db = createDb(schema.url, { poolSize: 4 });
  accountId = newId('acc');
  await db.account.create({ data: { id: accountId, name: 'attempts' } });
});
afterAll(async () => {
  await db.$disconnect();
  await drop();
});

async function task(): Promise<string> {
  const taskId = newId();
  await db.task.create({
    data: { id: taskId, accountId, type: 'image', model: 'image-c-2.1', params: { type: 'image', prompt: 'p', ratio: '1:1' }, costCents: 3, costMicros: 30_000n, deadlineAt: new Date(Date.now() + 60_000) },
  });
  return taskId;
}

it('startAttempt: the racing second start gets the first row back', async () => {
  const taskId = await task();
  const [a, b] = await Promise.all([startAttempt(db, 'att-a', taskId, 1, 'ch'), startAttempt(db, 'att-b', taskId, 1, 'ch')]);
  expect(a.id).toBe(b.id);
  expect(a).toMatchObject({ taskId, attemptNo: 1, channelId: 'ch', upstreamId: null, status: 'submitting', submitSentAt: null, submitOpenUntil: null, submitOpenMs: 0 });
  expect(a.createdAt).toBeInstanceOf(Date);
  expect(await db.taskAttempt.count({ where: { taskId } })).toBe(1);
});

it('recordUpstreamId of a finished render writes the id, the usage and succeeded at once, as a compare-and-set', async () => {
  const taskId = await task();
  const a = await markSubmitSent(db, await startAttempt(db, newId('att'), taskId, 1, 'ch'), 10_000);
  expect(a.submitSentAt).toBeInstanceOf(Date);
  expect(a.submitOpenUntil).toBeInstanceOf(Date);
  expect(await recordUpstreamId(db, a, 'pred-1', { usage: { units: 'images', amount: 1, costMicroUsd: 40_000 } })).toMatchObject({ recorded: { upstreamId: 'pred-1', status: 'succeeded' } });
  expect(await db.taskAttempt.findUniqueOrThrow({ where: { id: a.id } })).toMatchObject({
    upstreamId: 'pred-1', status: 'succeeded', usageUnits: 'images', usageAmount: 1, upstreamCostMicros: 40_000n, submitOpenUntil: null,
  });
  // The same answer written again (a retry whose first commit's answer was lost): still this render.
  expect(await recordUpstreamId(db, a, 'pred-1', {})).toMatchObject({ recorded: { upstreamId: 'pred-1', status: 'succeeded' } });
  // Another render's answer for the same attempt is not taken.
  expect(await recordUpstreamId(db, a, 'pred-2', {})).toEqual({ other: { upstreamId: 'pred-1', status: 'succeeded' } });

  const b = await startAttempt(db, newId('att'), taskId, 2, 'ch');
  await recordUsage(db, b, { units: 'seconds', amount: 3 });
  await recordUpstreamId(db, b, 'pred-3', {});
  expect(await db.taskAttempt.findUniqueOrThrow({ where: { id: b.id } })).toMatchObject({ upstreamId: 'pred-3', status: 'succeeded', usageUnits: 'seconds', usageAmount: 3, upstreamCostMicros: null });
  const c = await startAttempt(db, newId('att'), taskId, 3, 'ch');
  expect(await recordUpstreamId(db, c, 'pred-4')).toMatchObject({ recorded: { status: 'running' } });
});

it('loadTask: the task with its latest attempt, dates as Dates and params as an object', async () => {
  const taskId = await task();
  expect((await loadTask(db, taskId))!.attempt).toBeNull();
  await startAttempt(db, newId('att'), taskId, 1, 'ch');
  await startAttempt(db, newId('att'), taskId, 2, 'ch2');
  const t = await loadTask(db, taskId);
  expect(t).toMatchObject({ id: taskId, accountId, status: 'pending', model: 'image-c-2.1', progress: 0, cancelRequested: false, errorCode: null });
  expect(t!.params).toMatchObject({ prompt: 'p', ratio: '1:1' });
  expect(t!.deadlineAt).toBeInstanceOf(Date);
  expect(t!.attempt).toMatchObject({ attemptNo: 2, channelId: 'ch2', status: 'submitting', submitOpenMs: 0 });
  expect(t!.attempt!.createdAt).toBeInstanceOf(Date);
  expect(await loadTask(db, newId())).toBeNull();
});
