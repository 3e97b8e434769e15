// Through the simulator's http-jobs protocol: a provider that restarted and
// forgot a render answers 404 on its id. The task gets one fresh attempt on the same channel
// (the upstream has no render, so this cannot render twice), visible in the attempts, and
// completes, even on a model with a single channel.
import { ledgerDiscrepancies } from '@mediagen/db';
import { InProcess, startInProcess } from './in-process';

jest.setTimeout(30_000);

let w: InProcess;
beforeAll(async () => {
  w = await startInProcess((base) => ({
    channels: [{ id: 'single', baseUrl: `${base}/ch/single`, apiKey: 'k', costOrder: 1, models: { 'video-a-h3': 'm' }, poll: { firstMs: 50, minMs: 50, maxMs: 200 } }],
  }));
});
afterAll(async () => {
  expect(await ledgerDiscrepancies(w.db)).toEqual([]);
  await w.stop();
});

it('a lost render gets one fresh attempt on the same channel and the task completes', async () => {
  const taskId = await w.submit('a lighthouse #sim:lost #sim:delay=200');
  expect(await w.settled(taskId)).toMatchObject({ status: 'completed' });
  // The attempt row is closed just after the task settles: wait for it.
  const attempts = await w.closedAttempts(taskId);
  expect(attempts.map((a) => [a.attemptNo, a.channelId, a.status])).toEqual([[1, 'single', 'lost'], [2, 'single', 'completed']]);
  expect(attempts[0].upstreamId).not.toBe(attempts[1].upstreamId);
  // Upstream saw exactly two renders for the task: the forgotten one and the fresh one.
  expect(w.sim.refSummary(taskId).renders).toHaveLength(2);
});
