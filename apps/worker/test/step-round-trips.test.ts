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

it('the submit step of a new task', async () => {
  const taskId = await w.submit('a lighthouse at dusk');
  const { result: next, trips } = await countRoundTrips(redisOf(), () => advanceTask(w.app.ctx, runTaskPayloadSchema.parse({ taskId, step: 'submit', transientErrors: 0 })));
  expect(next).toMatchObject({ step: 'poll' });
  console.log(JSON.stringify(trips, null, 1));
  const row = await w.db.task.findUniqueOrThrow({ where: { id: taskId } });
  expect(row.status).toBe('processing');
});
