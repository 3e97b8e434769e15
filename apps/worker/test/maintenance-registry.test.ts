// The maintenance job registry: every job name of packages/queue has a handler (checked by the
// compiler), payloads are validated, and a job this worker does not know fails loudly instead of
// completing as a no-op.
import { Queue, QueueEvents, UnrecoverableError } from 'bullmq';
import IORedis from 'ioredis';
import { JOBS, MAINTENANCE_JOBS, QUEUES } from '@mediagen/queue';
import { MAINTENANCE, maintenanceProcessor, MaintenanceRegistry } from '../src/maintenance';
import type { WorkerContext } from '../src/context';
import { InProcess, startInProcess } from './in-process';

jest.setTimeout(30_000);

// Compile-time half of the rule (run by `npm run typecheck`): a registry that misses a job name is
// a type error, so the directive below is used; if the type ever stopped requiring every name,
// the unused directive would fail the typecheck.
// @ts-expect-error reconcile has no handler
const incomplete: MaintenanceRegistry = { [JOBS.sweepTimeouts]: MAINTENANCE[JOBS.sweepTimeouts] };
void incomplete;

describe('maintenance processor', () => {
  const ctx = {} as WorkerContext; // never reached: both jobs below are refused before any handler runs

  it('has a handler and a schedule for every maintenance job', () => {
    expect(Object.keys(MAINTENANCE).sort()).toEqual([...MAINTENANCE_JOBS].sort());
  });

  it('refuses an unknown job name as unrecoverable, naming it', async () => {
    const run = maintenanceProcessor(ctx)({ name: 'purge-everything', data: {} });
    await expect(run).rejects.toBeInstanceOf(UnrecoverableError);
    await expect(run).rejects.toThrow(/unknown maintenance job "purge-everything"/);
  });

  it('refuses a payload that is not an object as unrecoverable', async () => {
    await expect(maintenanceProcessor(ctx)({ name: JOBS.reconcile, data: 'junk' })).rejects.toBeInstanceOf(UnrecoverableError);
  });

  it('runs the handler of a known job with the parsed payload', async () => {
    const seen: unknown[] = [];
    const registry: MaintenanceRegistry = {
      ...MAINTENANCE,
      reconcile: { everyMs: () => 1000, run: async (_c, p) => (seen.push(p), 'ran') },
    };
    expect(await maintenanceProcessor(ctx, registry)({ name: JOBS.reconcile, data: {} })).toBe('ran');
    expect(seen).toEqual([{}]);
  });
});

describe('on a running worker', () => {
  let w: InProcess;
  beforeAll(async () => {
    w = await startInProcess((base) => ({
      channels: [{ id: 'm', baseUrl: `${base}/ch/m`, apiKey: 'k', costOrder: 1, models: { 'video-a-h3': 'm' } }],
    }));
  });
  afterAll(async () => {
    await w.stop();
  });

  it('a job with an unknown name ends failed, not completed', async () => {
    const connection = new IORedis(w.app.ctx.config.REDIS_URL, { maxRetriesPerRequest: null });
    const prefix = w.app.ctx.config.REDIS_PREFIX;
    const queue = new Queue(QUEUES.maintenance, { connection, prefix });
    const eventsConnection = connection.duplicate();
    const events = new QueueEvents(QUEUES.maintenance, { connection: eventsConnection, prefix });
    try {
      await events.waitUntilReady();
      const job = await queue.add('purge-everything', {});
      await expect(job.waitUntilFinished(events, 15_000)).rejects.toThrow(/unknown maintenance job/);
      expect(await job.getState()).toBe('failed');
      expect((await queue.getJob(job.id!))?.attemptsMade).toBeLessThanOrEqual(1);
    } finally {
      await events.close();
      await queue.close();
      eventsConnection.disconnect();
      connection.disconnect();
    }
  });
});
