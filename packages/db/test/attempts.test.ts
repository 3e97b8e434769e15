// The attempt rows on the answers-at-once path, written with plain SQL on the pg pool: a racing
// start gets the first row back, a synchronous answer's id write (a compare-and-set) also records
// `succeeded` and the usage, keeping what it does not replace, and
// loadTask reads the types the worker relies on; a polled render's success is one compare-and-set
// write, and the settlement statements answer the settled task.
import { createDb, Db } from '../src/client';
import { newId } from '../src/ids';
import { createTestSchema } from '../src/test-schema';
import { finishAttempt, loadTask, markAttemptSucceeded, markSubmitSent, markSubmitSentAndStart, recordUpstreamId, recordUsage, startAttempt } from '../src/attempts';
import { markProcessing } from '../src/settlement';
import { completeAttemptAndTask, completeTaskRow, failTaskRow } from '../src/settlement';
import { findCancelView, requestCancel } from '../src/cancel-queries';

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
  const a = (await markSubmitSent(db, await startAttempt(db, newId('att'), taskId, 1, 'ch'), 10_000))!;
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

it('markAttemptSucceeded: a polled render\'s success and usage in one write, never on a closed attempt', async () => {
  const taskId = await task();
  const a = await startAttempt(db, newId('att'), taskId, 1, 'ch');
  const running = (await recordUpstreamId(db, a, 'r-1')) as { recorded: Awaited<ReturnType<typeof startAttempt>> };
  expect(await markAttemptSucceeded(db, running.recorded, { units: 'seconds', amount: 5, costMicroUsd: 250_000 })).toMatchObject({ id: a.id, status: 'succeeded' });
  expect(await db.taskAttempt.findUniqueOrThrow({ where: { id: a.id } })).toMatchObject({ status: 'succeeded', usageUnits: 'seconds', usageAmount: 5, upstreamCostMicros: 250_000n });
  // Once more (a retried step): the attempt is no longer running, nothing is written.
  expect(await markAttemptSucceeded(db, running.recorded, { units: 'seconds', amount: 9 })).toBeNull();
  expect((await db.taskAttempt.findUniqueOrThrow({ where: { id: a.id } })).usageAmount).toBe(5);

  // The timeout sweep closed the attempt while the status read ran: a late success does not reopen it.
  const b = (await recordUpstreamId(db, await startAttempt(db, newId('att'), taskId, 2, 'ch'), 'r-2')) as { recorded: Awaited<ReturnType<typeof startAttempt>> };
  await finishAttempt(db, b.recorded, 'abandoned', 'timeout', 'deadline');
  expect(await markAttemptSucceeded(db, b.recorded)).toBeNull();
  expect(await db.taskAttempt.findUniqueOrThrow({ where: { id: b.recorded.id } })).toMatchObject({ status: 'abandoned', errorKind: 'timeout', errorMessage: 'deadline' });
});

it('completeAttemptAndTask: the attempt\'s success, its usage, the completion and the close in one statement; nothing when the attempt was closed', async () => {
  const opts = { retentionSeconds: 0, resultBytes: 7 };
  const running = async (no: number, taskId: string) =>
    ((await recordUpstreamId(db, await startAttempt(db, newId('att'), taskId, no, 'ch'), `r-${no}`)) as { recorded: Awaited<ReturnType<typeof startAttempt>> }).recorded;
  const usage = { units: 'seconds', amount: 5, costMicroUsd: 250_000 };
  const done = await task();
  const a = await running(1, done);
  expect(await completeAttemptAndTask(db, done, { id: a.id, from: 'running', usage }, ['https://x/0.mp4'], opts)).toEqual({
    attemptKept: true,
    task: { accountId, type: 'image', model: 'image-c-2.1', costCents: 3, expiresAt: null, eventsEmitted: true },
  });
  expect(await db.taskAttempt.findUniqueOrThrow({ where: { id: a.id } })).toMatchObject({
    status: 'completed', finishedAt: expect.any(Date), usageUnits: 'seconds', usageAmount: 5, upstreamCostMicros: 250_000n, errorKind: null,
  });
  expect(await db.task.findUniqueOrThrow({ where: { id: done } })).toMatchObject({ status: 'completed', resultUrls: ['https://x/0.mp4'], resultBytes: 7n });
  // Again (a retried step): the attempt is closed, nothing is written, the task keeps its files.
  expect(await completeAttemptAndTask(db, done, { id: a.id, from: 'running', usage: { units: 'seconds', amount: 9 } }, ['https://x/1.mp4'], opts)).toEqual({ attemptKept: false, task: null });
  expect((await db.taskAttempt.findUniqueOrThrow({ where: { id: a.id } })).usageAmount).toBe(5);
  expect((await db.task.findUniqueOrThrow({ where: { id: done } })).resultUrls).toEqual(['https://x/0.mp4']);

  // The timeout sweep closed the attempt while the file was stored: the task is not completed.
  const open = await task();
  const b = await running(1, open);
  await finishAttempt(db, b, 'abandoned', 'timeout', 'deadline');
  expect(await completeAttemptAndTask(db, open, { id: b.id, from: 'running' }, ['https://x/2.mp4'], opts)).toEqual({ attemptKept: false, task: null });
  expect(await db.task.findUniqueOrThrow({ where: { id: open } })).toMatchObject({ status: 'pending', resultUrls: [] });
  expect(await db.taskAttempt.findUniqueOrThrow({ where: { id: b.id } })).toMatchObject({ status: 'abandoned', errorKind: 'timeout' });
  // `from` must match: a running attempt is not taken as a resumed `succeeded` one.
  const c = await running(2, open);
  expect(await completeAttemptAndTask(db, open, { id: c.id, from: 'succeeded' }, ['https://x/3.mp4'], opts)).toEqual({ attemptKept: false, task: null });
  expect((await db.taskAttempt.findUniqueOrThrow({ where: { id: c.id } })).status).toBe('running');

  // Another settlement won the task first: the attempt still closes as completed, the task is not won.
  const failed = await task();
  const d = await running(1, failed);
  await failTaskRow(db, failed, { errorCode: 'timeout', errorMessage: 'm', retryable: true });
  expect(await completeAttemptAndTask(db, failed, { id: d.id, from: 'running' }, ['https://x/4.mp4'], opts)).toEqual({ attemptKept: true, task: null });
  expect(await db.task.findUniqueOrThrow({ where: { id: failed } })).toMatchObject({ status: 'failed', resultUrls: [] });
  expect((await db.taskAttempt.findUniqueOrThrow({ where: { id: d.id } })).status).toBe('completed');
});

it('the settling statement marks the events emitted only when the task has no webhook to send', async () => {
  const completedRow = async (taskId: string) => completeTaskRow(db, taskId, ['https://x/0.png'], { retentionSeconds: 0 });
  const failedRow = async (taskId: string) => failTaskRow(db, taskId, { errorCode: 'timeout', errorMessage: 'm', retryable: true });
  for (const settle of [completedRow, failedRow]) {
    const quiet = await task();
    expect(await settle(quiet)).toMatchObject({ eventsEmitted: true });
    expect((await db.task.findUniqueOrThrow({ where: { id: quiet } })).eventsEmittedAt).toEqual(expect.any(Date));
    // A task with a callback URL: the outbox step creates its delivery, so the mark waits for it.
    const withCallback = await task();
    await db.task.update({ where: { id: withCallback }, data: { callbackUrl: 'https://hooks.example/cb' } });
    expect(await settle(withCallback)).toMatchObject({ eventsEmitted: false });
    expect((await db.task.findUniqueOrThrow({ where: { id: withCallback } })).eventsEmittedAt).toBeNull();
  }
  // An account with a live endpoint: nothing is marked; a deleted endpoint does not count.
  const other = newId('acc');
  await db.account.create({ data: { id: other, name: 'hooks' } });
  const ep = await db.webhookEndpoint.create({ data: { id: newId('whe'), accountId: other, url: 'https://e', events: ['task.completed'], secret: 's' } });
  const hooked = newId();
  await db.task.create({ data: { id: hooked, accountId: other, type: 'image', model: 'image-c-2.1', params: {}, costCents: 3, costMicros: 30_000n, deadlineAt: new Date(Date.now() + 60_000) } });
  expect(await completedRow(hooked)).toMatchObject({ eventsEmitted: false });
  await db.webhookEndpoint.update({ where: { id: ep.id }, data: { deletedAt: new Date() } });
  const after = newId();
  await db.task.create({ data: { id: after, accountId: other, type: 'image', model: 'image-c-2.1', params: {}, costCents: 3, costMicros: 30_000n, deadlineAt: new Date(Date.now() + 60_000) } });
  expect(await completedRow(after)).toMatchObject({ eventsEmitted: true });
});

it('completeTaskRow / failTaskRow answer the settled task from the winning statement, null when they lose', async () => {
  const done = await task();
  expect(await completeTaskRow(db, done, ['https://x/0.png'], { retentionSeconds: 0 })).toEqual({ accountId, type: 'image', model: 'image-c-2.1', costCents: 3, expiresAt: null, eventsEmitted: true });
  expect(await completeTaskRow(db, done, ['https://x/1.png'], { retentionSeconds: 0 })).toBeNull();
  expect(await failTaskRow(db, done, { errorCode: 'timeout', errorMessage: 'm', retryable: true })).toBeNull();
  const failed = await task();
  expect(await failTaskRow(db, failed, { errorCode: 'timeout', errorMessage: 'm', retryable: true })).toEqual({ accountId, type: 'image', model: 'image-c-2.1', costCents: 3, expiresAt: null, eventsEmitted: true });
  expect(await db.ledgerEntry.count({ where: { taskId: failed, kind: 'refund', amountCents: 3 } })).toBe(1);
});

it('a send and a client cancel are ordered: once the cancel is marked no submit is marked sent; one marked first is seen as sent', async () => {
  const first = await task();
  const a = await startAttempt(db, newId('att'), first, 1, 'ch');
  expect(await requestCancel(db, first)).toBe(true);
  expect(await markSubmitSent(db, a, 10_000)).toBeNull();
  expect(await findCancelView(db, first, accountId)).toMatchObject({ attemptStatus: 'submitting', submitSent: false, cancelRequested: true });

  const second = await task();
  const b = await startAttempt(db, newId('att'), second, 1, 'ch');
  expect(await markSubmitSent(db, b, 10_000)).not.toBeNull();
  expect(await requestCancel(db, second)).toBe(true);
  expect(await findCancelView(db, second, accountId)).toMatchObject({ attemptStatus: 'submitting', upstreamId: null, submitSent: true });

  // Racing each other many times: never a cancel that saw no send while a send was marked.
  for (let i = 0; i < 20; i++) {
    const t = await task();
    const at = await startAttempt(db, newId('att'), t, 1, 'ch');
    const [sent, cancelSeen] = await Promise.all([
      markSubmitSent(db, at, 10_000),
      requestCancel(db, t).then(() => findCancelView(db, t, accountId)),
    ]);
    expect(cancelSeen!.submitSent).toBe(sent !== null);
  }
});

it('markSubmitSentAndStart: the sent mark and the pending -> processing move in one statement, each as strict as alone', async () => {
  const statusOf = async (id: string) => (await db.task.findUniqueOrThrow({ where: { id } })).status;
  // Pending: moved (startedAt stamped) and marked.
  const fresh = await task();
  const a = await startAttempt(db, newId('att'), fresh, 1, 'ch');
  const one = await markSubmitSentAndStart(db, a, 10_000);
  expect(one.started).toBe(true);
  expect(one.sent).toMatchObject({ id: a.id, submitOpenMs: 10_000, submitSentAt: expect.any(Date), submitOpenUntil: expect.any(Date) });
  expect(await db.task.findUniqueOrThrow({ where: { id: fresh } })).toMatchObject({ status: 'processing', startedAt: expect.any(Date) });
  // Sent again (a retried step): processing already, not moved again (the compare-and-set), still marked; the first send kept.
  const again = await markSubmitSentAndStart(db, a, 10_000);
  expect(again).toMatchObject({ started: false, sent: { submitSentAt: one.sent!.submitSentAt } });
  expect(await markProcessing(db, fresh)).toBe(false);

  // A cancel request before the mark: nothing may be sent, and the task moves as markProcessing alone would move it.
  const cancelled = await task();
  const b = await startAttempt(db, newId('att'), cancelled, 1, 'ch');
  expect(await requestCancel(db, cancelled)).toBe(true);
  expect(await markSubmitSentAndStart(db, b, 10_000)).toEqual({ sent: null, started: true });
  expect(await statusOf(cancelled)).toBe('processing');
  expect(await findCancelView(db, cancelled, accountId)).toMatchObject({ submitSent: false, cancelRequested: true });
  // Processing with a cancel request: neither.
  expect(await markSubmitSentAndStart(db, b, 10_000)).toEqual({ sent: null, started: false });

  // Settled: neither moved back nor marked.
  const settled = await task();
  const c = await startAttempt(db, newId('att'), settled, 1, 'ch');
  await failTaskRow(db, settled, { errorCode: 'timeout', errorMessage: 'm', retryable: true });
  expect(await markSubmitSentAndStart(db, c, 10_000)).toEqual({ sent: null, started: false });
  expect(await statusOf(settled)).toBe('failed');

  // Racing a client's cancel: ordered as markSubmitSent is.
  for (let i = 0; i < 20; i++) {
    const t = await task();
    const at = await startAttempt(db, newId('att'), t, 1, 'ch');
    const [{ sent, started }, cancelSeen] = await Promise.all([
      markSubmitSentAndStart(db, at, 10_000),
      requestCancel(db, t).then(() => findCancelView(db, t, accountId)),
    ]);
    expect(started).toBe(true);
    expect(cancelSeen!.submitSent).toBe(sent !== null);
  }
  // Two runs of one job racing: the task is moved once, both may mark (the first send is kept).
  const raced = await task();
  const d = await startAttempt(db, newId('att'), raced, 1, 'ch');
  const both = await Promise.all([markSubmitSentAndStart(db, d, 10_000), markSubmitSentAndStart(db, d, 10_000)]);
  expect(both.filter((r) => r.started)).toHaveLength(1);
  expect(both.every((r) => r.sent !== null)).toBe(true);
});
