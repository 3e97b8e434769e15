// Pipeline: answers-at-once submits through gateway, worker and simulator (render time 0), against
// BullMQ processing empty jobs; and the latency added after the provider finished, from the rows.
import type { BenchContext } from '../lib/context';
import { expectJson, load } from '../lib/load';
import { cpuMs, runToJson, sleep } from '../lib/procs';
import { figure } from '../lib/report';
import { CONNECTIONS, INSTANT_BODY, MiB, PHASE_SECONDS, WARMUP_SECONDS } from '../lib/settings';
import { percentile } from '../lib/stats';
import { fmt, jsonAuth, withRss } from '../lib/tasks';
import type { Section } from './section';

const mean = (a: number, b: number) => (a + b) / 2;

async function run(ctx: BenchContext): Promise<void> {
  const { stack: s, db, log, add } = ctx;
  const pipelineAccounts = await ctx.accounts('pipeline', 16);
  const bullFloorRun = (when: string) =>
    runToJson<{ jobs: number; rps: number }>(
      `bullmq-floor-${when}`,
      'bench/floors/bullmq-floor.ts',
      { ...s.env, REDIS_PREFIX: `${s.prefix}-floor`, DURATION_MS: String(PHASE_SECONDS * 1000), JOBS: '60000' },
      s.logDir,
    );
  log(`BullMQ floor (before): empty jobs, one process, ${PHASE_SECONDS} s`);
  const bullBefore = await bullFloorRun('before');
  log(`  ${bullBefore.rps.toFixed(0)} jobs/s`);
  const workerPid = await ctx.ensureWorker();

  const instantLoad = (duration: number, connections = CONNECTIONS) => {
    let i = 0;
    const text = JSON.stringify(INSTANT_BODY);
    return load({
      url: s.base,
      method: 'POST',
      connections,
      duration,
      request: () => ({ path: '/api/image/generate', headers: jsonAuth(pipelineAccounts[i++ % pipelineAccounts.length]), body: text }),
      check: expectJson(200, (b) =>
        b.status === 'completed' && Array.isArray(b.resultUrls) && b.resultUrls.length === 1 ? null : 'expected status "completed" with one result URL',
      ),
    });
  };
  // Per task: from the attempt's upstream submit (the simulator renders in 0 ms, so the provider
  // is done as soon as it has the render) to the task's commit as completed.
  const pIds = pipelineAccounts.map((a) => a.id);
  const addedSince = async (from: Date) =>
    (
      await db.$queryRaw<{ ms: number }[]>`
        SELECT EXTRACT(EPOCH FROM (t."finishedAt" - a."createdAt")) * 1000 AS ms
          FROM "Task" t JOIN "TaskAttempt" a ON a."taskId" = t."id" AND a."attemptNo" = 1
         WHERE t."accountId" = ANY(${pIds}) AND t."status" = 'completed' AND t."createdAt" >= ${from}`
    )
      .map((r) => Number(r.ms))
      .sort((a, b) => a - b);
  await instantLoad(WARMUP_SECONDS);
  const pipelineFrom = new Date();
  log(`pipeline: answers-at-once submits (${INSTANT_BODY.model}) through worker and simulator, ${CONNECTIONS} connections, ${PHASE_SECONDS} s`);
  const completedSoFar = async () =>
    ((await (await fetch(`http://127.0.0.1:${s.env.WORKER_PORT}/stats`)).json()) as { stats: { completed: number } }).stats.completed;
  const workerCpu0 = cpuMs(workerPid) ?? 0;
  const completed0 = await completedSoFar();
  const pipelineRun = await withRss(ctx.gatewayPid, () => instantLoad(PHASE_SECONDS));
  const pipeline = pipelineRun.out;
  // The worker's CPU time per task it completed (process user + system time), over the
  // phase and until the tasks still running when the load stopped have finished (the count holds
  // still for a second, 20 s at most), and what one core would complete per second at that cost.
  let completed = await completedSoFar();
  for (let until = Date.now() + 20_000; Date.now() < until; ) {
    await sleep(1000);
    const now = await completedSoFar();
    if (now === completed) break;
    completed = now;
  }
  const tasksDone = completed - completed0;
  const workerCpuPerTaskMs = tasksDone > 0 ? ((cpuMs(workerPid) ?? 0) - workerCpu0) / tasksDone : NaN;
  ctx.gatewayLoadPeaks.push(pipelineRun.peak);
  const added = await addedSince(pipelineFrom);
  log(`  worker CPU ${workerCpuPerTaskMs.toFixed(2)} ms per task over ${tasksDone} tasks (${(1000 / workerCpuPerTaskMs).toFixed(0)} tasks/s per core)`);
  log(`  ${fmt(pipeline)}; provider done -> completed p50=${percentile(added, 50).toFixed(0)}ms p99=${percentile(added, 99).toFixed(0)}ms over ${added.length} tasks; gateway RSS peak ${(pipelineRun.peak / MiB).toFixed(0)} MiB`);
  await sleep(1000);
  const lightFrom = new Date();
  log('pipeline at light load: 4 connections, 5 s');
  const light = await instantLoad(5, 4);
  const addedLight = await addedSince(lightFrom);
  log(`  ${fmt(light)}; provider done -> completed p50=${percentile(addedLight, 50).toFixed(0)}ms p99=${percentile(addedLight, 99).toFixed(0)}ms over ${addedLight.length} tasks`);
  // The worker is idle again once the last answers-at-once submit has its answer.
  log('BullMQ floor (after)');
  const bullAfter = await bullFloorRun('after');
  log(`  ${bullAfter.rps.toFixed(0)} jobs/s`);
  const bullFloor = { rps: mean(bullBefore.rps, bullAfter.rps) };
  // No target against BullMQ's empty jobs: a task is about 25 round trips by design.
  add(figure('pipeline throughput (submit to completed)', pipeline.rps, 'tasks/s', { floor: bullFloor.rps, better: 'higher' }));
  add(figure('worker CPU per task (answers-at-once image, 64 connections)', workerCpuPerTaskMs, 'ms', { better: 'lower' }));
  add(figure('tasks per second per worker core (1000 / CPU ms per task)', 1000 / workerCpuPerTaskMs, 'tasks/s', { better: 'higher' }));
  add(figure('pipeline submit-to-completed p50', pipeline.p50, 'ms', { better: 'lower' }));
  add(figure('pipeline submit-to-completed p99', pipeline.p99, 'ms', { better: 'lower' }));
  add(figure('pipeline latency added after the provider finished p50', percentile(added, 50), 'ms', { better: 'lower' }));
  add(figure('pipeline latency added after the provider finished p99', percentile(added, 99), 'ms', { better: 'lower' }));
  add(figure('pipeline latency added after the provider finished p50, light load (4 connections)', percentile(addedLight, 50), 'ms', { better: 'lower' }));
  add(figure('pipeline latency added after the provider finished p99, light load (4 connections)', percentile(addedLight, 99), 'ms', { better: 'lower' }));
  add(figure('pipeline responses failing their check', pipeline.bad + pipeline.errors + light.bad + light.errors, 'responses', { target: 0, better: 'lower' }));
  ctx.addFloor(figure('floor: BullMQ empty jobs processed', bullFloor.rps, 'jobs/s', { better: 'higher' }));
}

export const pipelineSection: Section = { name: 'pipeline', run };
