// A task the timeout sweep fails while its job sleeps between polls: the render is cancelled
// upstream. The sweep closes the attempt ('abandoned'); the job's next step then finds the task
// failed elsewhere with no running attempt, so the sweep itself must send the cancel, or nobody does.
import { ledgerDiscrepancies } from '@mediagen/db';
import { ChannelAdapter, createAdapter } from '@mediagen/providers';
import { abandonAttempt } from '../src/upstream-calls';
import { eventually, waitFor } from '../../../test/e2e/support/wait';
import { InProcess, startInProcess } from './in-process';

jest.setTimeout(30_000);

const cancelled: string[] = [];

/** The simulator's http-jobs channel, given a cancel call that records its upstream ids. */
function cancellable(a: ChannelAdapter): ChannelAdapter {
  return { ...a, capabilities: { ...a.capabilities, cancel: true }, async cancel(id: string) { cancelled.push(id); } };
}

let w: InProcess;
beforeAll(async () => {
  // Polls ten seconds apart: the job is asleep when the deadline passes, so the sweep settles the task.
  w = await startInProcess(
    (base) => ({
      channels: [{ id: 'slow', baseUrl: `${base}/ch/slow`, apiKey: 'k', costOrder: 1, models: { 'video-a-h3': 'm' }, poll: { firstMs: 10_000, minMs: 10_000, maxMs: 10_000 } }],
    }),
    { TASK_TIMEOUT_MS: '60000' },
    { adapters: (cfg) => new Map(cfg.channels.map((c) => [c.id, cancellable(createAdapter(c))])) },
  );
});
afterAll(async () => {
  if (!w) return;
  expect(await ledgerDiscrepancies(w.db)).toEqual([]);
  await w.stop();
});

async function runningAttempt(taskId: string) {
  const attempt = await eventually('the render accepted upstream', async () => {
    const a = await w.db.taskAttempt.findFirst({ where: { taskId } });
    return a?.status === 'running' && a.upstreamId ? a : null;
  });
  expect(attempt).toMatchObject({ status: 'running', upstreamId: expect.any(String) });
  return { id: attempt!.id, taskId, attemptNo: attempt!.attemptNo, channelId: attempt!.channelId, upstreamId: attempt!.upstreamId, status: 'running' as const, createdAt: attempt!.createdAt };
}

it('a task the sweep times out is cancelled upstream, though its attempt is closed before the job wakes', async () => {
  const taskId = await w.submit('a render that outlives its deadline #sim:delay=60000');
  const attempt = await runningAttempt(taskId);
  await w.db.task.update({ where: { id: taskId }, data: { deadlineAt: new Date(Date.now() - 1000) } });
  expect(await w.settled(taskId, 5_000)).toMatchObject({ status: 'failed', errorCode: 'timeout' });
  const [closed] = await w.closedAttempts(taskId);
  expect(closed.status).toBe('abandoned');
  // Well before the job's next poll (10 s away): only the sweep can have sent it.
  await waitFor(() => cancelled.includes(attempt.upstreamId!), 5_000, 'the upstream cancel').catch(() => undefined);
  expect(cancelled).toEqual([attempt.upstreamId]);
});

it('the sweep and the job ending the same attempt at once cancel its render once (a second DELETE deletes a MiniMax task)', async () => {
  cancelled.length = 0;
  const taskId = await w.submit('a render ended twice at once #sim:delay=60000');
  const attempt = await runningAttempt(taskId);
  // Both read the attempt while it ran, as the sweep and a job's deadline step do.
  await Promise.all([abandonAttempt(w.app.ctx, attempt, 'timeout'), abandonAttempt(w.app.ctx, attempt, 'task failed elsewhere')]);
  expect(cancelled).toEqual([attempt.upstreamId]);
  expect((await w.db.taskAttempt.findUniqueOrThrow({ where: { id: attempt.id } })).status).toBe('abandoned');
  // The job finds its attempt closed with no channel left and fails the task, refunded.
  expect(await w.settled(taskId, 20_000)).toMatchObject({ status: 'failed' });
});
