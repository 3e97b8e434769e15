// Housekeeping on its own queue: the timeout sweep and the reconciler run as BullMQ job schedulers,
// so with several worker processes each run happens once, wherever a worker is free.
// The registry below is keyed by every maintenance job name of packages/queue: a job without a
// handler or a schedule does not compile, and a job this worker does not know fails loudly
// (UnrecoverableError, logged) instead of completing as a silent no-op.
import { Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Config } from '@mediagen/config';
import { isMaintenanceJobName, MAINTENANCE_JOBS, MaintenanceJobName, MaintenancePayload, maintenancePayloadSchema, QUEUES, queuePrefix, RedisClient } from '@mediagen/queue';
import type { WorkerContext } from './context';
import { reconcile } from './reconciler';
import { sweepTimeouts } from './timeout-sweep';
import { deleteSettledInputs } from './settled-inputs';
import { reconcileWebhooks } from './webhook-events';
import { pruneAuditEvents } from './audit-retention';
import { keepSchedules, ScheduleKeeper } from './schedule-keeper';
import { expireSessions, EXPIRE_SESSIONS_EVERY_MS } from './expired-sessions';
import { deleteExpiredResults } from './result-retention';
import { pruneTables } from './table-retention';

export interface MaintenanceJob {
  /** How often the job scheduler runs it. */
  everyMs: (config: Config) => number;
  run: (ctx: WorkerContext, payload: MaintenancePayload) => Promise<unknown>;
}

export type MaintenanceRegistry = Record<MaintenanceJobName, MaintenanceJob>;

export const MAINTENANCE: MaintenanceRegistry = {
  'sweep-timeouts': { everyMs: (c) => c.SWEEP_INTERVAL_MS, run: async (ctx) => ({ timedOut: await sweepTimeouts(ctx) }) },
  // Private inputs of settled tasks are deleted on the same beat (settled-inputs.ts).
  reconcile: {
    everyMs: (c) => c.RECONCILE_INTERVAL_MS,
    run: async (ctx) => {
      const result = await reconcile(ctx);
      const inputsDeleted = await deleteSettledInputs(ctx).catch((err: Error) => {
        ctx.log.warn({ err: err.message }, 'settled inputs not deleted; next run retries');
        return 0;
      });
      return { ...result, inputsDeleted };
    },
  },
  'reconcile-webhooks': { everyMs: (c) => c.RECONCILE_INTERVAL_MS, run: (ctx) => reconcileWebhooks(ctx) },
  // Hourly: retention is counted in days, and each run deletes in small batches (audit-retention.ts).
  'prune-audit': { everyMs: () => 3_600_000, run: async (ctx) => ({ auditEventsDeleted: await pruneAuditEvents(ctx) }) },
  'expire-sessions': { everyMs: () => EXPIRE_SESSIONS_EVERY_MS, run: (ctx) => expireSessions(ctx) },
  retention: {
    everyMs: (c) => c.RETENTION_INTERVAL_MS,
    run: async (ctx) => ({ results: await deleteExpiredResults(ctx), rows: await pruneTables(ctx) }),
  },
};

/** Runs one maintenance job: validates its name and payload, then calls its handler. */
export function maintenanceProcessor(ctx: WorkerContext, registry: MaintenanceRegistry = MAINTENANCE) {
  return async (job: { name: string; data: unknown }): Promise<unknown> => {
    if (!isMaintenanceJobName(job.name)) throw new UnrecoverableError(`unknown maintenance job "${job.name}"; known: ${MAINTENANCE_JOBS.join(', ')}`);
    const parsed = maintenancePayloadSchema.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`invalid ${job.name} payload: ${parsed.error.message}`);
    return registry[job.name].run(ctx, parsed.data);
  };
}

export interface Maintenance {
  queue: Queue;
  worker: Worker;
  /** Declares the schedulers again when Redis lost them (schedule-keeper.ts); stopped on shutdown. */
  keeper: ScheduleKeeper;
}

export async function startMaintenance(ctx: WorkerContext, connection: RedisClient): Promise<Maintenance> {
  const prefix = queuePrefix(connection, ctx.config.REDIS_PREFIX);
  const queue = new Queue(QUEUES.maintenance, { connection, prefix });
  const opts = { removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } };
  // Upserting is idempotent: every worker declares the same schedules; the last declaration wins.
  const schedules = MAINTENANCE_JOBS.map((name) => ({
    id: name,
    declare: () => queue.upsertJobScheduler(name, { every: MAINTENANCE[name].everyMs(ctx.config) }, { name, data: {}, opts }),
  }));
  for (const s of schedules) await s.declare();
  const keeper = keepSchedules(queue, schedules, {
    checkEveryMs: Math.min(...MAINTENANCE_JOBS.map((name) => MAINTENANCE[name].everyMs(ctx.config)), 10_000),
    log: ctx.log,
    onConnectionReady: (fn) => connection.on('ready', fn),
  });
  const worker = new Worker(QUEUES.maintenance, maintenanceProcessor(ctx), { connection, prefix, concurrency: 1, lockDuration: 60_000 });
  worker.on('error', (err) => ctx.log.error({ err: err.message }, 'maintenance worker error'));
  worker.on('failed', (job, err) => ctx.log.error({ job: job?.name, err: err.message }, 'maintenance job failed'));
  return { queue, worker, keeper };
}
