// Keeps the maintenance job schedulers declared while the worker runs. The schedulers live in
// Redis, and the jobs they start (timeout sweep, reconciler) are what recovers tasks whose jobs
// were lost. Declaring them only at start made the recovery live in the data it recovers: a Redis
// that lost its data (restart without persistence, failover to an empty replica, FLUSHALL) with
// the workers left running meant no sweep and no reconcile, ever, and tasks stuck in processing.
//
// So each worker checks, on a timer of its own process (not a Redis job), that every scheduler
// still exists, and declares the missing ones again; it also re-declares all of them whenever its
// Redis connection becomes ready again. Declaring is idempotent across workers.
import type { Queue } from 'bullmq';
import type { Logger } from 'pino';

export interface Schedule {
  id: string;
  declare(): Promise<unknown>;
}

export interface ScheduleKeeper {
  /** Checks now (the timer also does it every `checkEveryMs`); resolves with the ids re-declared. */
  check(): Promise<string[]>;
  stop(): void;
}

export function keepSchedules(queue: Queue, schedules: Schedule[], opts: { checkEveryMs: number; log: Logger; onConnectionReady?: (fn: () => void) => void }): ScheduleKeeper {
  let running: Promise<string[]> | null = null;
  const check = (all = false): Promise<string[]> => {
    running ??= (async () => {
      const redeclared: string[] = [];
      for (const s of schedules) {
        if (!all && (await queue.getJobScheduler(s.id))) continue;
        await s.declare();
        redeclared.push(s.id);
      }
      if (redeclared.length && !all) opts.log.warn({ schedules: redeclared }, 'maintenance schedules were missing from Redis (data lost?); declared again');
      return redeclared;
    })().finally(() => (running = null));
    return running;
  };
  const quiet = (all: boolean) => () =>
    void check(all).catch((err: Error) => opts.log.warn({ err: err.message }, 'maintenance schedules not checked; retrying on the next tick'));
  const timer = setInterval(quiet(false), opts.checkEveryMs);
  timer.unref();
  opts.onConnectionReady?.(quiet(true));
  return { check: () => check(false), stop: () => clearInterval(timer) };
}
