// A task the timeout sweep fails while its job sleeps between polls: the render is cancelled
// upstream. The sweep closes the attempt ('abandoned'); the job's next step then finds the task
// failed elsewhere with no running attempt, so the sweep itself must send the cancel, or nobody does.
import { ledgerDiscrepancies } from '@mediagen/db';
import { ChannelAdapter, createAdapter } from '@mediagen/providers';
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

it('a task the sweep times out is cancelled upstream, though its attempt is closed before the job wakes', async () => {
  const taskId = await w.submit('a render that outlives its deadline #sim:delay=60000');
  let attempt = await w.db.taskAttempt.findFirst({ where: { taskId } });
  for (let i = 0; i < 200 && !(attempt?.status === 'running' && attempt.upstreamId); i++) {
    await new Promise((r) => setTimeout(r, 25));
    attempt = await w.db.taskAttempt.findFirst({ where: { taskId } });
  }
  expect(attempt).toMatchObject({ status: 'running', upstreamId: expect.any(String) });
  await w.db.task.update({ where: { id: taskId }, data: { deadlineAt: new Date(Date.now() - 1000) } });
  expect(await w.settled(taskId, 5_000)).toMatchObject({ status: 'failed', errorCode: 'timeout' });
  const [closed] = await w.closedAttempts(taskId);
  expect(closed.status).toBe('abandoned');
  // Well before the job's next poll (10 s away): only the sweep can have sent it.
  for (let i = 0; i < 40 && !cancelled.includes(attempt!.upstreamId!); i++) await new Promise((r) => setTimeout(r, 50));
  expect(cancelled).toEqual([attempt!.upstreamId]);
});
