// Measures one worker process keeping 10,000 renders in flight with bounded memory.
//   npx tsx apps/worker/bench/in-flight.bench.ts [--tasks 10000] [--render-ms 240000] [--concurrency 100]
// Starts the simulator and ONE worker as separate processes on a scratch Postgres schema and Redis
// prefix, inserts N charged tasks straight into the database (as the gateway would), enqueues them,
// and samples: renders in flight at the simulator, worker RSS/heap, Redis memory, settled tasks.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import IORedis from 'ioredis';
import { createDb, newId } from '@mediagen/db';
import { createTestSchema } from '@mediagen/db/testing';
import { createTaskQueue, JOBS } from '@mediagen/queue';
import { freePort, startProcess, stopProcess, waitForHealthy } from '../../../test/e2e/support/processes';
import { ledgerViolations } from '../../../test/e2e/support/ledger';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const N = arg('tasks', 10_000);
const RENDER_MS = arg('render-ms', 240_000);
const CONCURRENCY = arg('concurrency', 100);
const mb = (b: number) => Math.round(b / 1048576);

async function main() {
  const schema = await createTestSchema('bench');
  const prefix = `bench-${randomBytes(3).toString('hex')}`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-bench-'));
  const [simPort, workerPort] = [await freePort(), await freePort()];
  // Realistic poll cadence for long renders: first look after 15 s, then every age/10, 15-60 s.
  const channelFile = path.join(dir, 'channels.json');
  fs.writeFileSync(channelFile, JSON.stringify({
    channels: [{ id: 'bench-video', baseUrl: `http://127.0.0.1:${simPort}/ch/bench-video`, apiKey: 'bench', costOrder: 1,
      models: { 'video-a-h3': 'sim/video-a-h3' }, maxInFlight: 50_000, poll: { firstMs: 15_000, minMs: 15_000, maxMs: 60_000 } }],
  }));
  const env = {
    NODE_ENV: 'test', LOG_LEVEL: 'warn', DATABASE_URL: schema.url, REDIS_PREFIX: prefix, SIM_PORT: String(simPort),
    WORKER_PORT: String(workerPort), PROVIDER_CONFIG: channelFile, DATA_DIR: path.join(dir, 'data'),
    SIM_RENDER_MS: String(RENDER_MS), WORKER_CONCURRENCY: String(CONCURRENCY), PUBLIC_BASE_URL: 'http://127.0.0.1:3000',
    TASK_TIMEOUT_MS: String(6 * 3600_000), RECONCILE_GRACE_MS: '600000',
  };
  const sim = startProcess('sim', 'apps/provider-sim/src/main.ts', env, dir);
  const worker = startProcess('worker', 'apps/worker/src/main.ts', { ...env, NODE_OPTIONS: process.env.WORKER_NODE_OPTIONS ?? '' }, dir);
  await waitForHealthy(`http://127.0.0.1:${simPort}/healthz`, sim);
  await waitForHealthy(`http://127.0.0.1:${workerPort}/healthz`, worker);

  const db = createDb(schema.url);
  const redis = new IORedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
  const queue = createTaskQueue(redis, prefix);
  // Whatever happens, leave no processes, schema, keys or files behind.
  const cleanup = async () => {
    await Promise.all([stopProcess(worker), stopProcess(sim)]);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    await queue.close();
    redis.disconnect();
    await db.$disconnect();
    await schema.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  process.once('SIGINT', () => void cleanup().finally(() => process.exit(130)));
  try {
    await measure();
  } finally {
    await cleanup();
  }

  async function measure() {
    const redisBase = Number(/used_memory:(\d+)/.exec(await redis.info('memory'))![1]);

    // N charged tasks in one transaction, exactly as N gateway submits would leave them.
    const accountId = newId('acc');
    const cost = 4;
    const spec = { type: 'video', model: 'video-a-h3', prompt: 'bench', duration: 1, ratio: '16:9', resolution: '480p', tier: null, variant: null,
      refMode: 'omni', effort: '1x', seed: null, optimizePrompt: false, media: [], firstFrame: null, lastFrame: null, outputSeconds: 1 };
    const t0 = Date.now();
    await db.$transaction([
      db.account.create({ data: { id: accountId, name: 'bench', balanceCents: 1_000_000 - N * cost, tasksInProgress: N, maxConcurrentTasks: N } }),
      db.ledgerEntry.create({ data: { id: newId('led'), accountId, kind: 'topup', amountCents: 1_000_000 } }),
      db.$executeRaw`INSERT INTO "Task" ("id","accountId","type","model","params","costCents","costMicros","updatedAt","deadlineAt")
        SELECT 'bench-' || g, ${accountId}, 'video', 'video-a-h3', ${JSON.stringify(spec)}::jsonb, ${cost}, ${cost * 10_000}, now(), now() + interval '6 hours'
          FROM generate_series(1, ${N}) g`,
      db.$executeRaw`INSERT INTO "LedgerEntry" ("id","accountId","taskId","kind","amountCents")
        SELECT 'led_bench_' || g, ${accountId}, 'bench-' || g, 'charge', ${-cost} FROM generate_series(1, ${N}) g`,
    ]);
    for (let i = 0; i < N; i += 1000)
      await queue.addBulk(Array.from({ length: Math.min(1000, N - i) }, (_, j) => {
        const taskId = `bench-${i + j + 1}`;
        return { name: JOBS.runTask, data: { taskId, step: 'submit' as const, transientErrors: 0 }, opts: { jobId: taskId } };
      }));
    console.log(`created and enqueued ${N} tasks in ${Date.now() - t0} ms`);

    const samples: Record<string, number>[] = [];
    let allInFlightAt = 0;
    let peak = { rss: 0, heap: 0, redis: 0, inFlight: 0 };
    for (;;) {
      await new Promise((r) => setTimeout(r, 2_000));
      const simStats = await (await fetch(`http://127.0.0.1:${simPort}/stats`)).json();
      const w = await (await fetch(`http://127.0.0.1:${workerPort}/stats`)).json();
      const redisMem = Number(/used_memory:(\d+)/.exec(await redis.info('memory'))![1]) - redisBase;
      const settled = await db.task.count({ where: { accountId, status: { in: ['completed', 'failed'] } } });
      const s = { t: Math.round((Date.now() - t0) / 1000), inFlight: simStats.inFlight, rendersStarted: simStats.renders, settled,
        rssMB: mb(w.memory.rss), heapMB: mb(w.memory.heapUsed), redisMB: mb(redisMem), steps: w.stats.steps, polls: w.stats.polls };
      samples.push(s);
      peak = { rss: Math.max(peak.rss, w.memory.rss), heap: Math.max(peak.heap, w.memory.heapUsed), redis: Math.max(peak.redis, redisMem), inFlight: Math.max(peak.inFlight, simStats.inFlight) };
      console.log(JSON.stringify(s));
      if (!allInFlightAt && simStats.renders >= N) allInFlightAt = Date.now() - t0;
      if (settled >= N) break;
    }
    const completed = await db.task.count({ where: { accountId, status: 'completed' } });
    const problems = await ledgerViolations(db);
    const summary = {
      tasks: N, renderMs: RENDER_MS, workerConcurrency: CONCURRENCY, cpus: os.cpus().length,
      allSubmittedAfterMs: allInFlightAt, peakInFlight: peak.inFlight, completed, totalMs: Date.now() - t0,
      peakWorkerRssMB: mb(peak.rss), peakWorkerHeapMB: mb(peak.heap), peakRedisMB: mb(peak.redis), ledgerProblems: problems.length,
    };
    console.log('SUMMARY', JSON.stringify(summary, null, 2));
    fs.writeFileSync(path.join(__dirname, 'last-run.json'), JSON.stringify({ summary, samples }, null, 1));
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
