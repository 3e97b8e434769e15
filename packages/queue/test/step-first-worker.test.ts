// StepFirstWorker on the real Redis: a woken job reaches the processor before the worker sends its
// next moveToActive (BullMQ's own Worker sometimes awaits that fetch first, depending on where its
// loop stands when the job comes), the fetch after one that took a job is answered without Redis
// and the one after it asks again, and slots still fill up to the concurrency when many jobs wait.
import { randomUUID } from 'node:crypto';
import IORedis from 'ioredis';
import { DelayedError, type Job, Queue } from 'bullmq';
import { deleteKeysWithPrefix, queuePrefix, StepFirstWorker } from '../src';
import { waitFor } from '../../../test/e2e/support/wait';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-step-first-${randomUUID().slice(0, 8)}`;

let redis: IORedis;
const open: { close(): Promise<void> }[] = [];
beforeAll(() => {
  redis = new IORedis(REDIS_URL, { maxRetriesPerRequest: null });
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((x) => x.close()));
});
afterAll(async () => {
  await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

/** A StepFirstWorker on its own queue, its fetches and processor starts written to `events` in order. */
function start(name: string, events: string[], body: (job: Job, token?: string) => Promise<void> = async () => undefined) {
  const worker = new StepFirstWorker(
    name,
    async (job, token) => {
      events.push(`step ${job.name}`);
      await body(job, token);
    },
    { connection: redis, prefix: queuePrefix(redis, prefix), concurrency: 4, autorun: false },
  );
  const backend = (worker as unknown as { backend: { moveToActive(...a: unknown[]): Promise<unknown[]> } }).backend;
  const fetch = backend.moveToActive.bind(backend);
  backend.moveToActive = async (...a: unknown[]) => {
    events.push('fetch sent');
    const out = await fetch(...a);
    events.push(out[0] ? 'fetch: job' : 'fetch: none');
    return out;
  };
  const queue = new Queue(name, { connection: redis, prefix: queuePrefix(redis, prefix) });
  open.push(worker, queue);
  void worker.run();
  return { worker, queue };
}


/**
 * A job that delays itself after each step and is promoted `wakes` times (an upstream callback's
 * wake); for each wake, the fetches sent between the one that took the job and its step's start.
 */
async function wakes(n: number): Promise<number[]> {
  const events: string[] = [];
  let runs = 0;
  const name = `q-${randomUUID().slice(0, 8)}`;
  const { worker, queue } = start(name, events, async (job, token) => {
    runs += 1;
    await new Promise((r) => setTimeout(r, 2));
    await job.moveToDelayed(Date.now() + 60_000, token); // the step's end: wait for the next wake
    throw new DelayedError();
  });
  await worker.waitUntilReady();
  await queue.add('a', {}, { jobId: 'a' });
  await queue.add('other', {}, { jobId: 'other', delay: 60_000 }); // a render waiting elsewhere
  for (let i = 1; i <= n; i++) {
    await waitFor(() => runs === i, 10_000, `step ${i} of the job`);
    await new Promise((r) => setTimeout(r, 100)); // the worker idles, blocked for a marker
    events.push('wake');
    await (await queue.getJob('a'))!.promote();
  }
  await waitFor(() => runs === n + 1, 10_000, 'the last woken step');
  return events
    .join('|')
    .split('wake')
    .slice(1)
    .map((part) => part.split('step a')[0].split('|').filter((e) => e === 'fetch sent').length - 1);
}

it('StepFirstWorker starts a woken job before it sends its next fetch, every time', async () => {
  expect(await wakes(6)).toEqual([0, 0, 0, 0, 0, 0]);
});

it('answers the fetch right after one that took a job with none, without asking Redis; the next one asks', async () => {
  const events: string[] = [];
  const { worker, queue } = start(`q-${randomUUID().slice(0, 8)}`, events);
  await worker.pause(); // the test drives moveToActive itself
  await queue.add('a', {});
  const fetch = (worker as unknown as { moveToActive(token: string): Promise<Job | undefined> }).moveToActive.bind(worker);
  events.length = 0;
  expect((await fetch('t1'))?.name).toBe('a');
  expect(await fetch('t2')).toBeUndefined();
  expect(events).toEqual(['fetch sent', 'fetch: job']); // the second answer did not go to Redis
  await fetch('t3');
  expect(events).toEqual(['fetch sent', 'fetch: job', 'fetch sent', 'fetch: none']);
});

it('fills every slot when jobs wait, and runs them all', async () => {
  const events: string[] = [];
  let running = 0;
  let most = 0;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const { worker, queue } = start(`q-${randomUUID().slice(0, 8)}`, events, async () => {
    most = Math.max(most, ++running);
    await gate;
    running -= 1;
  });
  await worker.waitUntilReady();
  await queue.addBulk(Array.from({ length: 12 }, (_, i) => ({ name: `j${i}`, data: {} })));
  // Well under BullMQ's blocking timeout (5 s): the jobs after the first are found through the
  // marker BullMQ re-adds, not after a blocked read runs out.
  await waitFor(() => running === 4, 3_000, 'four slots busy');
  await new Promise((r) => setTimeout(r, 100));
  expect(most).toBe(4); // never above the concurrency
  release();
  await waitFor(() => events.filter((e) => e.startsWith('step ')).length === 12, 10_000, 'twelve steps');
  await waitFor(async () => (await queue.getJobCounts('completed')).completed === 12, 10_000, 'twelve jobs completed');
});
