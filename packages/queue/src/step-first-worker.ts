// BullMQ's worker, except that a job it has just taken goes to its processor before it asks Redis
// for the next one.
//
// BullMQ's main loop (Worker.mainLoop, 6.x) fills its concurrency slots in sequence: after a
// `moveToActive` that returned a job it sends another one and awaits it, and only when that one
// comes back empty (or the slots are full) hands the first job to the processor. A task woken by
// an upstream callback (or any job added to an idle worker) therefore waited one Redis round trip
// and a script for a job that was not there before its step began: measured on the wire, 0.5 ms
// of the ~10 ms between a callback and the client seeing `completed` (docs/benchmark.md,
// "Time to result with callbacks: one render at a time against four").
//
// Here the fetch right after one that returned a job answers "none" without asking; the loop then
// starts the job it holds, and its next pass asks Redis as before (while the step awaits its
// first reads). Nothing is skipped, only put after the step's start: with many jobs waiting, a job
// still starts per round trip, one at a time as before. `moveToActive` is BullMQ's protected
// extension point; packages/queue/test/step-first-worker.test.ts fails when an upgrade changes
// the loop this relies on.
import { Worker, type Job } from 'bullmq';

export class StepFirstWorker<DataType = unknown, ResultType = unknown, NameType extends string = string> extends Worker<DataType, ResultType, NameType> {
  // Not initialized: a field initializer would run after BullMQ's constructor, which may start the loop.
  declare private tookOne: boolean | undefined;

  protected override async moveToActive(token: string, name?: string): Promise<Job<DataType, ResultType, NameType>> {
    if (this.tookOne) {
      this.tookOne = false;
      return undefined as unknown as Job<DataType, ResultType, NameType>;
    }
    const job = await super.moveToActive(token, name);
    this.tookOne = !!job;
    return job;
  }
}
