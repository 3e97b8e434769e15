// What every bench section gets: the stack under test, a database client on its database, the
// report (`add` a figure, `addFloor` a floor, listed after all figures), accounts, and the shared
// state some sections lean on (pending tasks to poll, the worker, gateway RSS peaks).
// Invariant: the worker starts at most once, and only after the pending tasks exist and their jobs
// are dropped, so the tasks polled as `pending` stay pending for the whole run.
import { Queue } from 'bullmq';
import IORedis from 'ioredis';
import type { Db } from '@mediagen/db';
import { QUEUES } from '@mediagen/queue';
import { BenchAccount, createAccounts } from './admin';
import type { Figure } from './report';
import { BALANCE, CONNECTIONS, IMAGE_BODY } from './settings';
import { startWorker, Stack } from './stack';
import { fmt, submitLoad, Submitted } from './tasks';

export interface BenchContext {
  stack: Stack;
  db: Db;
  gatewayPid: number;
  /** The worker's pid once `ensureWorker` has run. */
  workerPid: () => number;
  log: (msg: string) => void;
  add: (f: Figure) => void;
  /** Floors are listed after every figure, in the order the sections ran. */
  addFloor: (f: Figure) => void;
  /** Gateway RSS peaks of loaded phases: the report's "gateway RSS peak under load". */
  gatewayLoadPeaks: number[];
  accounts: (name: string, n: number, opts?: { balanceCents?: number; maxConcurrentTasks?: number }) => Promise<BenchAccount[]>;
  /** Tasks accepted while the worker was not running (the submit section's, or 1,000 made here). */
  pendingTasks: () => Promise<Submitted[]>;
  /** Records tasks that will stay pending (submitted before the worker starts). */
  keepPending: (tasks: Submitted[]) => void;
  /** Drops every queued task job, then starts the worker (once). */
  ensureWorker: () => Promise<number>;
}

export const log = (msg: string) => process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

/** `needPending`: some section of the run polls pending tasks, so they are made before the worker starts. */
export function createContext(stack: Stack, db: Db, report: { figures: Figure[]; floors: Figure[] }, needPending: boolean): BenchContext {
  const pending: Submitted[] = [];
  let workerPid: number | null = null;
  const ctx: BenchContext = {
    stack,
    db,
    gatewayPid: stack.gateway!.child.pid!,
    workerPid: () => {
      if (workerPid === null) throw new Error('the worker is not running: call ensureWorker first');
      return workerPid;
    },
    log,
    add: (f) => report.figures.push(f),
    addFloor: (f) => report.floors.push(f),
    gatewayLoadPeaks: [],
    accounts: (name, n, opts = {}) =>
      createAccounts(stack.base, stack.adminToken, n, name, { balanceCents: opts.balanceCents ?? BALANCE, maxConcurrentTasks: opts.maxConcurrentTasks ?? 10_000 }),
    keepPending: (tasks) => {
      if (workerPid !== null) throw new Error('tasks submitted after the worker started do not stay pending');
      pending.push(...tasks);
    },
    pendingTasks: async () => {
      if (pending.length === 0) {
        if (workerPid !== null) throw new Error('no pending tasks were made before the worker started');
        const accounts = await ctx.accounts('pending', 8);
        const made: Submitted[] = [];
        const r = await submitLoad(stack, accounts, IMAGE_BODY, { connections: CONNECTIONS, amount: 1000 }, made);
        log(`  made ${made.length} pending tasks to poll (${fmt(r)})`);
        pending.push(...made);
      }
      return pending;
    },
    ensureWorker: async () => {
      if (workerPid !== null) return workerPid;
      // Sections that poll pending tasks may run after this one: make them while no worker runs.
      if (needPending) await ctx.pendingTasks();
      // The tasks of the submit phases were never meant to run: drop their jobs, then start the
      // worker on an empty queue.
      const redis = new IORedis(stack.redisUrl, { maxRetriesPerRequest: null });
      const tasksQueue = new Queue(QUEUES.tasks, { connection: redis, prefix: stack.prefix });
      await tasksQueue.drain(true);
      await tasksQueue.close();
      redis.disconnect();
      log('starting the worker');
      await startWorker(stack);
      workerPid = stack.worker!.child.pid!;
      return workerPid;
    },
  };
  return ctx;
}
