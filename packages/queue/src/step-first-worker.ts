// BullMQ's worker, except that a job it has just taken goes to its processor before it asks Redis
// for the next one.
//
// BullMQ's main loop (Worker.mainLoop, 6.x) fills its concurrency slots in sequence: after a
// `moveToActive` that returned a job it sends another one, and when the job came through that part
// of the loop it awaits the answer before handing the job to the processor (where the loop stood
// decides; in a test, one wake in six or more). A task woken by an upstream callback then waited
// a Redis round trip and a script for a job that was not there before its step began (on the
// wire, 0.5 ms of the ~10 ms between a callback and the client seeing `completed`:
// docs/benchmark.md, "Time to result with callbacks: one render at a time against four").
//
// Here the fetch right after one that returned a job answers "none" without asking Redis; the loop
// starts the job it holds and goes on as after an empty fetch. No job is missed: BullMQ's script
// re-adds the queue's marker whenever it hands out a job, so the loop's blocking read returns at
// once and the next fetch does ask Redis, which finds any job waiting (it was the second of two
// such checks per wake; docs/benchmark.md, "Time to result with callbacks: four clients, or four
// renders ending together"). With many jobs waiting, they are still taken one per round trip.
// `moveToActive` is BullMQ's protected extension point; packages/queue/test/step-first-worker.test.ts
// fails when an upgrade changes what this relies on.
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
