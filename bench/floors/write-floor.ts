// Floor for the submit figure: the submit's own writes without HTTP. The same billing transaction
// the gateway runs (createTaskWithCharge) and the same BullMQ add (enqueueTask), with the
// gateway's pool size, from CONCURRENCY loops over the accounts in ACCOUNTS, for DURATION_MS.
// Prints {"result": {...}} as its last line.
import { randomUUID } from 'node:crypto';
import { loadConfig } from '@mediagen/config';
import { computeCost, parseImageSubmit } from '@mediagen/catalog';
import { createDb, createTaskWithCharge } from '@mediagen/db';
import { createProducerRedis, createTaskQueue, enqueueTask } from '@mediagen/queue';
import { GATEWAY_POOL_SIZE } from '../lib/constants';
import { percentile } from '../lib/stats';

async function main(): Promise<void> {
  const config = loadConfig();
  const accounts = (process.env.ACCOUNTS ?? '').split(',').filter(Boolean);
  const concurrency = Number(process.env.CONCURRENCY ?? 64);
  const durationMs = Number(process.env.DURATION_MS ?? 10_000);
  const db = createDb(config.DATABASE_URL, { poolSize: GATEWAY_POOL_SIZE });
  const redis = createProducerRedis(config.REDIS_URL);
  await new Promise((r) => redis.once('ready', r));
  const queue = createTaskQueue(redis, config.REDIS_PREFIX);
  // The request is validated and priced once: those are the gateway's CPU work, not the writes.
  const { spec } = parseImageSubmit(JSON.parse(process.env.BODY ?? '{}'), { allowPrivateMediaUrls: false });
  const cost = computeCost(spec, { videoSeconds: [], audioSeconds: [] });

  const one = async (accountId: string) => {
    const taskId = randomUUID();
    await createTaskWithCharge(db, {
      taskId,
      accountId,
      type: spec.type,
      model: spec.model,
      params: { ...spec, outputSeconds: cost.outputSeconds } as never,
      costCents: cost.costCents,
      costMicros: cost.costMicros,
      billedSeconds: cost.billedSeconds,
      deadlineAt: new Date(Date.now() + config.TASK_TIMEOUT_MS),
    });
    await enqueueTask(queue, taskId);
  };

  // Warm the pool and the code paths, as the gateway is warm when it is measured.
  for (let i = 0; i < 50; i++) await one(accounts[i % accounts.length]);

  const latencies: number[] = [];
  let n = 0;
  const start = performance.now();
  const cpu0 = process.cpuUsage();
  const until = start + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, c) => {
      while (performance.now() < until) {
        const t0 = performance.now();
        await one(accounts[(c + n++) % accounts.length]);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpu0);
  latencies.sort((a, b) => a - b);
  const result = { ops: latencies.length, seconds, rps: latencies.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), cpuUsPerOp: (cpu.user + cpu.system) / latencies.length };
  await queue.close();
  await redis.quit();
  await db.$disconnect();
  console.log(JSON.stringify({ result }));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
