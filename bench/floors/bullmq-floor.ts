// Floor for the pipeline figure: BullMQ processing empty jobs in one process, with the task queue's
// job options and the task worker's settings (concurrency WORKER_CONCURRENCY, same lock and stall
// settings). JOBS jobs are queued first (not timed); then the worker runs for DURATION_MS or until
// the queue is empty. Prints {"result": {...}} as its last line.
import { Worker } from 'bullmq';
import { loadConfig } from '@mediagen/config';
import { createConsumerRedis, createTaskQueue, JOBS, QUEUES } from '@mediagen/queue';

async function main(): Promise<void> {
  const config = loadConfig();
  const jobs = Number(process.env.JOBS ?? 40_000);
  const durationMs = Number(process.env.DURATION_MS ?? 10_000);
  const redis = createConsumerRedis(config.REDIS_URL);
  const workerRedis = createConsumerRedis(config.REDIS_URL);
  const queue = createTaskQueue(redis, config.REDIS_PREFIX);
  for (let i = 0; i < jobs; i += 1000) {
    await queue.addBulk(
      Array.from({ length: Math.min(1000, jobs - i) }, (_, j) => ({
        name: JOBS.runTask,
        data: { taskId: `floor-${i + j}`, step: 'submit' as const, transientErrors: 0 },
        opts: { jobId: `floor-${i + j}` },
      })),
    );
  }

  let done = 0;
  let start = 0;
  const worker = new Worker(QUEUES.tasks, async () => 'ok', {
    connection: workerRedis,
    prefix: config.REDIS_PREFIX,
    concurrency: config.WORKER_CONCURRENCY,
    lockDuration: config.WORKER_LOCK_MS,
    stalledInterval: config.WORKER_STALLED_INTERVAL_MS,
    maxStalledCount: 10,
    autorun: false,
  });
  worker.on('completed', () => {
    done += 1;
  });
  start = performance.now();
  void worker.run();
  while (performance.now() - start < durationMs && done < jobs) await new Promise((r) => setTimeout(r, 20));
  const seconds = (performance.now() - start) / 1000;
  const processed = done;
  await worker.close(true);
  await queue.obliterate({ force: true });
  await queue.close();
  await Promise.all([redis.quit(), workerRedis.quit()]);
  console.log(JSON.stringify({ result: { jobs: processed, seconds, rps: processed / seconds, concurrency: config.WORKER_CONCURRENCY } }));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
