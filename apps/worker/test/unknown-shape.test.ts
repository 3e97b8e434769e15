// An upstream answering with a shape no source describes (a field of the wrong type) is neither a
// crash nor a success: each such answer is logged, read again like a dropped connection, and after
// WORKER_MAX_TRANSIENT_ERRORS in a row the render is given up on that channel; after the last
// channel the task fails with generation_failed and is refunded (docs/providers.md).
import { InProcess, startInProcess } from './in-process';

jest.setTimeout(40_000);

let w: InProcess;
beforeAll(async () => {
  const poll = { firstMs: 50, minMs: 50, maxMs: 200 };
  const mm = (id: string, costOrder: number) => (base: string) => ({
    id, protocol: 'minimax', baseUrl: `${base}/minimax`, apiKey: `${id}-k`, costOrder, poll, reportsViolations: true,
    models: { 'video-a-h3': 'MiniMax-H3' }, effortModels: { '1.5x': 'MiniMax-H3', '2x': 'MiniMax-H3' },
  });
  w = await startInProcess((base) => ({ channels: [mm('mm-a', 1)(base), mm('mm-b', 2)(base)] }), { ALLOW_PRIVATE_MEDIA_URLS: 'true', WORKER_MAX_TRANSIENT_ERRORS: '2' });
});
afterAll(async () => {
  await w?.stop();
});

it('a status of unknown shape is logged each time, given up on each channel after the transient budget, and refunded', async () => {
  const warn = jest.spyOn(w.app.ctx.log, 'warn');
  const taskId = await w.submit(`a lighthouse #sim:unknown-shape ${Date.now()}`);
  expect(await w.settled(taskId, 30_000)).toMatchObject({ status: 'failed', errorCode: 'generation_failed' });
  const attempts = await w.closedAttempts(taskId);
  expect(attempts.map((a) => [a.channelId, a.status, a.errorKind])).toEqual([['mm-a', 'failed', 'failed'], ['mm-b', 'failed', 'failed']]);
  expect(attempts.every((a) => /unexpected answer from the upstream \(3 times in a row\)/.test(a.errorMessage ?? ''))).toBe(true);
  const logged = warn.mock.calls.filter(([, msg]) => msg === 'upstream answer of unknown shape');
  // Three answers per channel: two retried, the third gives the render up.
  expect(logged).toHaveLength(6);
  expect(logged[0][0]).toMatchObject({ taskId, channel: 'mm-a', err: expect.stringMatching(/unexpected answer/) });
  const ledger = await w.db.ledgerEntry.findMany({ where: { taskId }, orderBy: { createdAt: 'asc' } });
  expect(ledger.map((e) => e.kind)).toEqual(['charge', 'refund']);
});
