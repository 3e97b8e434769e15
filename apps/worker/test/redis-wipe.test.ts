// Redis loses its data (restart without persistence, failover to an empty
// replica, FLUSHALL) and the worker is NOT restarted. The timeout sweep and the reconciler are
// schedulers stored in Redis; the worker must notice they are gone and declare them again, so the
// reconciler re-enqueues the tasks whose jobs were wiped and every task still ends.
import IORedis from 'ioredis';
import { ledgerDiscrepancies } from '@mediagen/db';
import { deleteKeysWithPrefix } from '@mediagen/queue';
import { waitFor } from '../../../test/e2e/support/wait';
import { InProcess, startInProcess } from './in-process';

jest.setTimeout(90_000);

let w: InProcess;
beforeAll(async () => {
  w = await startInProcess(
    (base) => ({
      channels: [{ id: 'only', baseUrl: `${base}/ch/only`, apiKey: 'k', costOrder: 1, models: { 'video-a-h3': 'm' }, poll: { firstMs: 100, minMs: 100, maxMs: 300 } }],
    }),
    { SWEEP_INTERVAL_MS: '1000', RECONCILE_INTERVAL_MS: '1000', RECONCILE_GRACE_MS: '500' },
  );
});
afterAll(async () => {
  expect(await ledgerDiscrepancies(w.db)).toEqual([]);
  await w.stop();
});

it('every task ends after the Redis prefix is wiped under load, without restarting the worker', async () => {
  const ids = await Promise.all(Array.from({ length: 30 }, (_, i) => w.submit(`clip ${i} #sim:delay=${1500 + i * 50}`)));
  // Renders are in flight (jobs delayed between polls) when everything in Redis disappears: at least
  // ten accepted upstream, none finished yet (the shortest render takes 1.5 s).
  const inFlight = () => w.db.taskAttempt.count({ where: { taskId: { in: ids }, status: 'running', upstreamId: { not: null } } });
  await waitFor(async () => (await inFlight()) >= 10, 15_000, 'renders in flight');
  const redis = new IORedis(w.app.ctx.config.REDIS_URL);
  try {
    expect(await deleteKeysWithPrefix(redis, w.app.ctx.config.REDIS_PREFIX)).toBeGreaterThan(0);
  } finally {
    redis.disconnect();
  }
  const done = await Promise.all(ids.map((id) => w.settled(id, 45_000)));
  expect(done.map((t) => t.status)).toEqual(ids.map(() => 'completed'));
  // One render per task upstream: resumed from the attempt, never submitted again.
  const attempts = await w.db.taskAttempt.groupBy({ by: ['taskId'], _count: { _all: true }, where: { taskId: { in: ids } } });
  expect(attempts.every((a) => a._count._all === 1)).toBe(true);
});
