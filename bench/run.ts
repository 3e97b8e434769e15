// `npm run bench`: measures the service against floors taken in the same run on the same machine,
// and writes bench/results/latest.json. See docs/benchmark.md for what each figure means.
import os from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import IORedis from 'ioredis';
import { createDb, Db, ledgerDiscrepancies } from '@mediagen/db';
import { QUEUES } from '@mediagen/queue';
import { BenchAccount, createAccounts } from './lib/admin';
import { expectJson, load, LoadResult } from './lib/load';
import { cpuMs, ROOT, RssSampler, runToJson, rssBytes, sleep, startProcess, stopProcess, waitHealthy, freePort } from './lib/procs';
import { Figure, figure, formatTable, machineInfo, writeReport } from './lib/report';
import { createStack, destroyStack, Stack, startSimAndGateway, startWorker } from './lib/stack';
import { percentile } from './lib/stats';

const MiB = 1024 * 1024;
const CONNECTIONS = 64;
const SUBMIT_SECONDS = Number(process.env.BENCH_SUBMIT_SECONDS ?? 20);
const PHASE_SECONDS = Number(process.env.BENCH_PHASE_SECONDS ?? 10);
const WARMUP_SECONDS = 3;
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 10_000);
const RENDER_MS = 60_000;
const BALANCE = 100_000_000;

/** A plain image model (answers `pending`) and an answers-at-once one (waits for its result). */
const IMAGE_BODY = { model: 'image-b-2.5', prompt: 'a lighthouse at dusk, benchmark', ratio: '16:9' };
const INSTANT_BODY = { model: 'image-c-2.1', prompt: 'a lighthouse at dusk, benchmark', ratio: '16:9' };

const log = (msg: string) => process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const fmt = (r: LoadResult) =>
  `${r.rps.toFixed(0)}/s ok=${r.ok} bad=${r.bad} errors=${r.errors} p50=${r.p50}ms p99=${r.p99}ms${r.firstBad ? ` first bad: ${r.firstBad}` : ''}`;
const auth = (a: BenchAccount) => ({ Authorization: `Bearer ${a.key}` });
const jsonAuth = (a: BenchAccount) => ({ ...auth(a), 'Content-Type': 'application/json' });
const mib = (bytes: number) => bytes / MiB;
const mean = (a: number, b: number) => (a + b) / 2;

interface Submitted {
  taskId: string;
  account: BenchAccount;
}

/** Submits round-robin over `accounts`; collects the task ids of the accepted ones. */
function submitLoad(s: Stack, accounts: BenchAccount[], body: object, opts: { connections: number; duration?: number; amount?: number }, into: Submitted[]) {
  const text = JSON.stringify(body);
  let i = 0;
  return load({
    url: s.base,
    method: 'POST',
    connections: opts.connections,
    duration: opts.duration,
    amount: opts.amount,
    request: () => {
      const account = accounts[i++ % accounts.length];
      return { path: '/api/image/generate', headers: jsonAuth(account), body: text, tag: account };
    },
    check: expectJson(200, (b, tag) => {
      if (typeof b.taskId !== 'string' || b.status !== 'pending') return 'expected {taskId, status: "pending"}';
      into.push({ taskId: b.taskId, account: tag as BenchAccount });
      return null;
    }),
  });
}

function pollLoad(s: Stack, tasks: Submitted[], opts: { connections: number; duration: number }, expectStatus: string[]) {
  let i = 0;
  return load({
    url: s.base,
    method: 'GET',
    connections: opts.connections,
    duration: opts.duration,
    request: () => {
      const t = tasks[i++ % tasks.length];
      return { path: `/api/image/tasks/${t.taskId}`, headers: auth(t.account) };
    },
    check: expectJson(200, (b) => (expectStatus.includes(b.status as string) && b.type === 'image' ? null : `expected status ${expectStatus.join('|')}`)),
  });
}

/** Runs `fn` while sampling the RSS of `pid`. */
async function withRss<T>(pid: number, fn: () => Promise<T>, everyMs = 50): Promise<{ out: T; peak: number; mean: number; cpuMs: number }> {
  const sampler = new RssSampler(pid, everyMs);
  const cpu0 = cpuMs(pid) ?? 0;
  try {
    const out = await fn();
    return { out, ...sampler.stop(), cpuMs: (cpuMs(pid) ?? 0) - cpu0 };
  } catch (e) {
    sampler.stop();
    throw e;
  }
}

async function idleRss(pid: number, ms = 1500): Promise<number> {
  const samples: number[] = [];
  const until = Date.now() + ms;
  while (Date.now() < until) {
    samples.push(rssBytes(pid) ?? 0);
    await sleep(50);
  }
  samples.sort((a, b) => a - b);
  return percentile(samples, 50);
}

async function main(): Promise<void> {
  const started = Date.now();
  // Other work on a shared machine moves every figure; the report says how busy it was.
  const loadAverageAtStart = os.loadavg()[0];
  const figures: Figure[] = [];
  const add = (f: Figure) => figures.push(f);
  log('preparing the bench database and starting provider-sim + gateway');
  const s = await createStack();
  let failed = true;
  let db: Db | null = null;
  try {
    await startSimAndGateway(s);
    const gatewayPid = s.gateway!.child.pid!;
    db = createDb(s.databaseUrl, { poolSize: 4 });

    const submitAccounts = await createAccounts(s.base, s.adminToken, CONNECTIONS, 'submit', { balanceCents: BALANCE, maxConcurrentTasks: 10_000 });
    const floorAccounts = await createAccounts(s.base, s.adminToken, CONNECTIONS, 'write-floor', { balanceCents: BALANCE, maxConcurrentTasks: 10_000 });
    const pipelineAccounts = await createAccounts(s.base, s.adminToken, 16, 'pipeline', { balanceCents: BALANCE });
    const [probeAccount] = await createAccounts(s.base, s.adminToken, 1, 'probe', { balanceCents: BALANCE, maxConcurrentTasks: 10_000 });
    const [largeAccount] = await createAccounts(s.base, s.adminToken, 1, 'large', { balanceCents: BALANCE, maxConcurrentTasks: 10_000 });
    const flightAccounts = await createAccounts(s.base, s.adminToken, Math.ceil(IN_FLIGHT / 5_000), 'in-flight', { balanceCents: BALANCE, maxConcurrentTasks: 10_000 });
    const gatewayLoadPeaks: number[] = [];

    // ---- 1. Submit, against its write floor ------------------------------------------------
    const writeFloorRun = (when: string) =>
      runToJson<{ ops: number; rps: number; p50: number; p99: number; cpuUsPerOp: number }>(
        `write-floor-${when}`,
        'bench/floors/write-floor.ts',
        { ...s.env, ACCOUNTS: floorAccounts.map((a) => a.id).join(','), CONCURRENCY: String(CONNECTIONS), DURATION_MS: String(PHASE_SECONDS * 1000), BODY: JSON.stringify(IMAGE_BODY) },
        s.logDir,
      );
    log(`write floor (before): billing transaction + BullMQ add, ${CONNECTIONS} concurrent, ${PHASE_SECONDS} s`);
    const writeFloorBefore = await writeFloorRun('before');
    log(`  ${writeFloorBefore.rps.toFixed(0)}/s p50=${writeFloorBefore.p50.toFixed(1)}ms p99=${writeFloorBefore.p99.toFixed(1)}ms`);

    const submitted: Submitted[] = [];
    await submitLoad(s, submitAccounts, IMAGE_BODY, { connections: CONNECTIONS, duration: WARMUP_SECONDS }, submitted);
    log(`submit: POST /api/image/generate, ${CONNECTIONS} connections over ${submitAccounts.length} accounts, ${SUBMIT_SECONDS} s`);
    const submitRun = await withRss(gatewayPid, () => submitLoad(s, submitAccounts, IMAGE_BODY, { connections: CONNECTIONS, duration: SUBMIT_SECONDS }, submitted));
    const submit = submitRun.out;
    gatewayLoadPeaks.push(submitRun.peak);
    log(`  ${fmt(submit)}; gateway RSS peak ${mib(submitRun.peak).toFixed(0)} MiB`);
    log(`write floor (after)`);
    const writeFloorAfter = await writeFloorRun('after');
    log(`  ${writeFloorAfter.rps.toFixed(0)}/s p50=${writeFloorAfter.p50.toFixed(1)}ms p99=${writeFloorAfter.p99.toFixed(1)}ms`);
    const writeFloor = {
      rps: mean(writeFloorBefore.rps, writeFloorAfter.rps),
      p99: mean(writeFloorBefore.p99, writeFloorAfter.p99),
      cpuUs: mean(writeFloorBefore.cpuUsPerOp, writeFloorAfter.cpuUsPerOp),
    };
    const submitCpuUs = (submitRun.cpuMs * 1000) / submit.total;

    // The ledger afterwards: balance == sum(ledger) for every account; every accepted submit has its
    // task and exactly one charge; the submit accounts lost exactly what their tasks cost. A request
    // still in flight when a run stops may have committed a task whose answer nobody read: at most
    // one per connection and run, reported but not counted as a problem.
    const discrepancies = await ledgerDiscrepancies(db);
    const ids = submitAccounts.map((a) => a.id);
    const accepted = submitted.map((t) => t.taskId);
    const [counts] = await db.$queryRaw<{ tasks: bigint; charges: bigint; charged: bigint; costs: bigint; balances: bigint; acceptedOk: bigint }[]>`
      SELECT (SELECT count(*) FROM "Task" WHERE "accountId" = ANY(${ids})) AS tasks,
             (SELECT count(*) FROM "LedgerEntry" WHERE "accountId" = ANY(${ids}) AND kind = 'charge') AS charges,
             (SELECT COALESCE(-sum("amountCents"), 0) FROM "LedgerEntry" WHERE "accountId" = ANY(${ids}) AND kind = 'charge') AS charged,
             (SELECT COALESCE(sum("costCents"), 0) FROM "Task" WHERE "accountId" = ANY(${ids})) AS costs,
             (SELECT sum("balanceCents") FROM "Account" WHERE "id" = ANY(${ids})) AS balances,
             (SELECT count(*) FROM "Task" t WHERE t."id" = ANY(${accepted})
                 AND (SELECT count(*) FROM "LedgerEntry" l WHERE l."taskId" = t."id" AND l.kind = 'charge') = 1) AS "acceptedOk"`;
    const unanswered = Number(counts.tasks) - accepted.length;
    const ledgerProblems =
      discrepancies.length +
      (accepted.length - Number(counts.acceptedOk)) +
      Math.abs(Number(counts.tasks) - Number(counts.charges)) +
      (Number(counts.charged) === Number(counts.costs) && Number(counts.balances) === BALANCE * ids.length - Number(counts.charged) ? 0 : 1) +
      (unanswered < 0 || unanswered > 2 * CONNECTIONS ? 1 : 0);
    log(
      `  ledger: ${discrepancies.length} accounts off; ${counts.acceptedOk}/${accepted.length} accepted submits with their task and one charge; ` +
        `${counts.tasks} tasks, ${counts.charges} charges (${unanswered} committed while their answer was in flight at a run's end)`,
    );

    add(figure('submit throughput', submit.rps, 'req/s', { floor: writeFloor.rps, target: 0.5, better: 'higher' }));
    add(figure('submit latency p50', submit.p50, 'ms', { better: 'lower' }));
    add(figure('gateway CPU per submit (vs the write floor process per op)', submitCpuUs, 'us', { floor: writeFloor.cpuUs, better: 'lower' }));
    add(figure('submit latency p99', submit.p99, 'ms', { target: 50, better: 'lower' }));
    add(figure('submit responses failing their check', submit.bad + submit.errors, 'responses', { target: 0, better: 'lower' }));
    add(figure('ledger discrepancies after submit', ledgerProblems, 'count', { target: 0, better: 'lower' }));

    // ---- 2. Poll, against a bare Express route ---------------------------------------------
    const floorPort = await freePort();
    const expressFloor = startProcess('express-floor', 'bench/floors/express-floor.ts', { PORT: String(floorPort) }, s.logDir);
    const floorUrl = `http://127.0.0.1:${floorPort}`;
    await waitHealthy(`${floorUrl}/healthz`, expressFloor);
    const floorLoad = (duration: number) =>
      load({
        url: floorUrl,
        method: 'GET',
        connections: CONNECTIONS,
        duration,
        request: { path: `/api/image/tasks/${submitted[0].taskId}`, headers: auth(submitted[0].account) },
        check: expectJson(200, (b) => (b.status === 'pending' && b.type === 'image' ? null : 'unexpected body')),
      });
    const floorPid = expressFloor.child.pid!;
    // A pool of 1,000 tasks: at a few thousand polls a second each is asked about every second or
    // so, so most polls are answered from the 5 s cache and the rest from Postgres.
    const pollPool = submitted.filter((_, i) => i % Math.max(1, Math.floor(submitted.length / 1000)) === 0).slice(0, 1000);
    await floorLoad(WARMUP_SECONDS);
    await pollLoad(s, pollPool, { connections: CONNECTIONS, duration: WARMUP_SECONDS }, ['pending']);
    // Short slices in turn (floor, poll, floor, ... floor), so that what else the machine does
    // weighs on both alike: E P E P E P E.
    const SLICES = 3;
    const sliceS = Math.max(3, Math.round(PHASE_SECONDS / 2));
    log(`poll: GET /api/image/tasks/:id over ${pollPool.length} tasks vs a bare Express 5 route, ${CONNECTIONS} connections, ${SLICES} x ${sliceS} s each, alternating`);
    const floorRuns: Awaited<ReturnType<typeof withRss<LoadResult>>>[] = [];
    const pollRuns: Awaited<ReturnType<typeof withRss<LoadResult>>>[] = [];
    for (let i = 0; i < SLICES; i++) {
      floorRuns.push(await withRss(floorPid, () => floorLoad(sliceS)));
      pollRuns.push(await withRss(gatewayPid, () => pollLoad(s, pollPool, { connections: CONNECTIONS, duration: sliceS }, ['pending'])));
      log(`  express ${floorRuns[i].out.rps.toFixed(0)}/s, poll ${pollRuns[i].out.rps.toFixed(0)}/s`);
    }
    floorRuns.push(await withRss(floorPid, () => floorLoad(sliceS)));
    await stopProcess(expressFloor);
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    const merge = (runs: typeof pollRuns): LoadResult & { cpuMs: number; peak: number } => {
      const outs = runs.map((r) => r.out);
      const seconds = sum(outs.map((o) => o.seconds));
      const ok = sum(outs.map((o) => o.ok));
      // Percentiles of the slices' percentiles weighted by their counts: close enough at these sizes.
      const wavg = (f: (o: LoadResult) => number) => sum(outs.map((o) => f(o) * o.total)) / Math.max(1, sum(outs.map((o) => o.total)));
      return {
        rps: ok / seconds,
        p50: Number(wavg((o) => o.p50).toFixed(1)),
        p99: Math.max(...outs.map((o) => o.p99)),
        mean: wavg((o) => o.mean),
        total: sum(outs.map((o) => o.total)),
        ok,
        bad: sum(outs.map((o) => o.bad)),
        firstBad: outs.find((o) => o.firstBad)?.firstBad ?? null,
        errors: sum(outs.map((o) => o.errors)),
        timeouts: sum(outs.map((o) => o.timeouts)),
        seconds,
        cpuMs: sum(runs.map((r) => r.cpuMs)),
        peak: Math.max(...runs.map((r) => r.peak)),
      };
    };
    const poll = merge(pollRuns);
    const pollRun = poll;
    const expressAll = merge(floorRuns);
    gatewayLoadPeaks.push(poll.peak);
    log(`  poll ${fmt(poll)}; gateway RSS peak ${mib(poll.peak).toFixed(0)} MiB`);
    log(`  express ${fmt(expressAll)}`);
    const express = { rps: expressAll.rps, cpuUs: (expressAll.cpuMs * 1000) / expressAll.total, rss: expressAll.peak };
    const pollCpuUs = (pollRun.cpuMs * 1000) / poll.total;
    add(figure('poll throughput', poll.rps, 'req/s', { floor: express.rps, target: 0.8, better: 'higher' }));
    add(figure('poll latency p50', poll.p50, 'ms', { better: 'lower' }));
    add(figure('gateway CPU per poll (vs the bare Express route)', pollCpuUs, 'us', { floor: express.cpuUs, better: 'lower' }));
    add(figure('poll latency p99 (highest of the slices)', poll.p99, 'ms', { better: 'lower' }));
    add(figure('poll responses failing their check', poll.bad + poll.errors, 'responses', { target: 0, better: 'lower' }));

    // ---- 3. Pipeline, against BullMQ processing empty jobs ---------------------------------
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

    // The tasks of the submit phase and the write floor were never meant to run: drop their jobs,
    // then start the worker on an empty queue.
    const redis = new IORedis(s.redisUrl, { maxRetriesPerRequest: null });
    const tasksQueue = new Queue(QUEUES.tasks, { connection: redis, prefix: s.prefix });
    await tasksQueue.drain(true);
    await tasksQueue.close();
    redis.disconnect();
    log('starting the worker');
    await startWorker(s);
    const workerPid = s.worker!.child.pid!;

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
        await db!.$queryRaw<{ ms: number }[]>`
          SELECT EXTRACT(EPOCH FROM (t."finishedAt" - a."createdAt")) * 1000 AS ms
            FROM "Task" t JOIN "TaskAttempt" a ON a."taskId" = t."id" AND a."attemptNo" = 1
           WHERE t."accountId" = ANY(${pIds}) AND t."status" = 'completed' AND t."createdAt" >= ${from}`
      )
        .map((r) => Number(r.ms))
        .sort((a, b) => a - b);
    await instantLoad(WARMUP_SECONDS);
    const pipelineFrom = new Date();
    log(`pipeline: answers-at-once submits (${INSTANT_BODY.model}) through worker and simulator, ${CONNECTIONS} connections, ${PHASE_SECONDS} s`);
    const pipelineRun = await withRss(gatewayPid, () => instantLoad(PHASE_SECONDS));
    const pipeline = pipelineRun.out;
    gatewayLoadPeaks.push(pipelineRun.peak);
    const added = await addedSince(pipelineFrom);
    log(`  ${fmt(pipeline)}; provider done -> completed p50=${percentile(added, 50).toFixed(0)}ms p99=${percentile(added, 99).toFixed(0)}ms over ${added.length} tasks`);
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
    add(figure('pipeline throughput (submit to completed)', pipeline.rps, 'tasks/s', { floor: bullFloor.rps, target: 0.5, better: 'higher' }));
    add(figure('pipeline submit-to-completed p50', pipeline.p50, 'ms', { better: 'lower' }));
    add(figure('pipeline submit-to-completed p99', pipeline.p99, 'ms', { better: 'lower' }));
    add(figure('pipeline latency added after the provider finished p50', percentile(added, 50), 'ms', { better: 'lower' }));
    add(figure('pipeline latency added after the provider finished p99', percentile(added, 99), 'ms', { better: 'lower' }));
    add(figure('pipeline latency added after the provider finished p50, light load (4 connections)', percentile(addedLight, 50), 'ms', { better: 'lower' }));
    add(figure('pipeline latency added after the provider finished p99, light load (4 connections)', percentile(addedLight, 99), 'ms', { better: 'lower' }));
    add(figure('pipeline responses failing their check', pipeline.bad + pipeline.errors + light.bad + light.errors, 'responses', { target: 0, better: 'lower' }));

    // ---- Probes: submit and poll latency at light load, quiet now and with 10,000 in flight --
    const probe = async () => {
      const into: Submitted[] = [];
      const sub = await submitLoad(s, [probeAccount], IMAGE_BODY, { connections: 8, duration: 5 }, into);
      const pol = await pollLoad(s, pollPool, { connections: 8, duration: 5 }, ['pending']);
      return { sub, pol };
    };
    log('probes (8 connections, 5 s each) on the quiet stack');
    const quiet = await probe();
    log(`  submit ${fmt(quiet.sub)}\n  poll ${fmt(quiet.pol)}`);

    // ---- 5. Large bodies --------------------------------------------------------------------
    // Three inline images of 9.9 MiB each: the largest body under the 40 MiB limit with whole files.
    const fileBytes = Math.floor(9.9 * MiB);
    const inline = () => {
      const b = Buffer.alloc(fileBytes);
      for (let i = 8; i + 4 <= b.length; i += 4) b.writeUInt32LE((i * 2654435761) >>> 0, i);
      Buffer.from('\x89PNG\r\n\x1a\n', 'latin1').copy(b, 0);
      return `data:image/png;base64,${b.toString('base64')}`;
    };
    const largeBody = Buffer.from(JSON.stringify({ ...IMAGE_BODY, images: [inline(), inline(), inline()] }));
    const largeConnections = Number(process.env.BENCH_LARGE_CONNECTIONS ?? 1);
    await sleep(2000);
    const idle = await idleRss(gatewayPid);
    log(`large bodies: ${largeConnections} connection(s), 10 submits of ${mib(largeBody.length).toFixed(1)} MiB; gateway idle RSS ${mib(idle).toFixed(0)} MiB`);
    const largeRun = await withRss(
      gatewayPid,
      () =>
        load({
          url: s.base,
          method: 'POST',
          connections: largeConnections,
          amount: 10,
          request: { path: '/api/image/generate', headers: jsonAuth(largeAccount), body: largeBody },
          check: expectJson(200, (b) => (b.status === 'pending' ? null : 'expected status "pending"')),
          timeoutS: 60,
        }),
      10,
    );
    const above = largeRun.peak - idle;
    log(`  ${fmt(largeRun.out)}; gateway RSS peak ${mib(largeRun.peak).toFixed(0)} MiB (${mib(above).toFixed(0)} MiB above idle)`);
    add(figure('gateway RSS peak under load (submit, poll, pipeline, in flight)', 0, 'MiB', { target: 250, better: 'lower' })); // value filled in below
    add(figure(`gateway RSS above idle during 40 MB submits (${largeConnections} at a time)`, mib(above), 'MiB', { floor: mib(largeBody.length), target: 3, better: 'lower' }));
    add(figure('large submits failing their check', largeRun.out.bad + largeRun.out.errors, 'responses', { target: 0, better: 'lower' }));

    // ---- 4. In flight -----------------------------------------------------------------------
    log(`in flight: ${IN_FLIGHT} renders of ${RENDER_MS / 1000} s through one worker`);
    const simStats = async () => (await (await fetch(`http://127.0.0.1:${s.env.SIM_PORT}/stats`)).json()) as { inFlight: number; submits: number };
    const workerStats = async () => ((await (await fetch(`http://127.0.0.1:${s.env.WORKER_PORT}/stats`)).json()) as { stats: { steps: number } }).stats;
    const workerIdle = await idleRss(workerPid, 1000);
    const workerSampler = new RssSampler(workerPid, 100);
    const gatewaySampler = new RssSampler(gatewayPid, 50);
    const flightStart = Date.now();
    const flightTasks: Submitted[] = [];
    let peakInFlight = 0;
    let rssAtPeak = 0;
    let monitoring = true;
    const stepsAt0 = (await workerStats()).steps;
    const monitor = (async () => {
      while (monitoring) {
        const st = await simStats().catch(() => null);
        if (st && st.inFlight >= peakInFlight) {
          peakInFlight = st.inFlight;
          rssAtPeak = rssBytes(workerPid) ?? rssAtPeak;
        }
        await sleep(500);
      }
    })();
    const flightSubmit = await submitLoad(s, flightAccounts, { ...IMAGE_BODY, prompt: `benchmark #sim:delay=${RENDER_MS}` }, { connections: CONNECTIONS, amount: IN_FLIGHT }, flightTasks);
    log(`  submitted ${flightSubmit.ok} in ${flightSubmit.seconds.toFixed(1)} s (${fmt(flightSubmit)})`);
    // Wait until every render is in flight upstream, or the first ones are about to finish.
    while (peakInFlight < IN_FLIGHT && Date.now() - flightStart < RENDER_MS - 12_000) await sleep(500);
    log(`  ${peakInFlight} renders in flight at the simulator; probing the API`);
    const loaded = await probe();
    log(`  submit ${fmt(loaded.sub)}\n  poll ${fmt(loaded.pol)}`);
    // The first renders finish about RENDER_MS after their upstream submit; the peak is just before.
    while (Date.now() - flightStart < RENDER_MS + 5_000) await sleep(500);
    monitoring = false;
    await monitor;
    const stepsPerSecond = ((await workerStats()).steps - stepsAt0) / ((Date.now() - flightStart) / 1000);
    const worker = workerSampler.stop();
    gatewayLoadPeaks.push(gatewaySampler.stop().peak);
    log(`  peak ${peakInFlight} in flight; worker RSS idle ${mib(workerIdle).toFixed(0)} MiB, peak ${mib(worker.peak).toFixed(0)} MiB, at peak in flight ${mib(rssAtPeak).toFixed(0)} MiB; ${stepsPerSecond.toFixed(0)} steps/s`);
    add(figure('renders in flight at once (peak)', peakInFlight, 'renders', { target: IN_FLIGHT, better: 'higher' }));
    add(figure(`worker RSS peak with ${IN_FLIGHT} renders in flight`, mib(worker.peak), 'MiB', { target: 300, better: 'lower' }));
    add(figure('worker RSS idle', mib(workerIdle), 'MiB', { better: 'lower' }));
    add(figure('worker steps per second while in flight', stepsPerSecond, 'steps/s', { better: 'higher' }));
    add(figure('in-flight submit p50 (8 connections)', loaded.sub.p50, 'ms', { floor: quiet.sub.p50, better: 'lower' }));
    add(figure('in-flight submit p99 (8 connections)', loaded.sub.p99, 'ms', { floor: quiet.sub.p99, better: 'lower' }));
    add(figure('in-flight poll p50 (8 connections)', loaded.pol.p50, 'ms', { floor: quiet.pol.p50, better: 'lower' }));
    add(figure('in-flight poll p99 (8 connections)', loaded.pol.p99, 'ms', { floor: quiet.pol.p99, better: 'lower' }));
    add(figure('in-flight responses failing their check', flightSubmit.bad + flightSubmit.errors + loaded.sub.bad + loaded.pol.bad, 'responses', { target: 0, better: 'lower' }));

    const gwPeak = Math.max(...gatewayLoadPeaks);
    const gwIdx = figures.findIndex((f) => f.name.startsWith('gateway RSS peak under load'));
    figures[gwIdx] = figure(figures[gwIdx].name, mib(gwPeak), 'MiB', { target: 250, better: 'lower' });

    // ---- 6. The floors themselves -----------------------------------------------------------
    add(figure('floor: bare Express 5 route', express.rps, 'req/s', { better: 'higher' }));
    add(figure('floor: bare Express 5 route RSS peak', mib(express.rss), 'MiB', { better: 'lower' }));
    add(figure('floor: billing transaction + BullMQ add, no HTTP', writeFloor.rps, 'ops/s', { better: 'higher' }));
    add(figure('floor: billing transaction + BullMQ add p99', writeFloor.p99, 'ms', { better: 'lower' }));
    add(figure('floor: BullMQ empty jobs processed', bullFloor.rps, 'jobs/s', { better: 'higher' }));

    const [pg] = await db.$queryRaw<{ v: string }[]>`SHOW server_version`;
    const machine = await machineInfo({
      postgres: pg.v,
      redis: await redisVersion(s.redisUrl),
      loadGenerator: `autocannon ${require('autocannon/package.json').version}`,
      benchSeconds: Math.round((Date.now() - started) / 1000),
      loadAverage1m: { atStart: Number(loadAverageAtStart.toFixed(2)), atEnd: Number(os.loadavg()[0].toFixed(2)) },
    });
    const out = path.resolve(ROOT, process.env.BENCH_OUT ?? 'bench/results/latest.json');
    writeReport(out, machine, figures);
    console.log(
      `\n${formatTable(figures)}\n\nmachine: ${machine.cpuModel}, ${machine.cores} cores, Node ${machine.node}; ` +
        `load average ${loadAverageAtStart.toFixed(1)} at start, ${os.loadavg()[0].toFixed(1)} at end; ${machine.benchSeconds} s\nwritten: ${path.relative(ROOT, out)}`,
    );
    failed = false;
  } finally {
    await db?.$disconnect();
    await destroyStack(s, failed);
    if (failed) console.error(`bench failed; logs kept in ${s.logDir}`);
  }
}

async function redisVersion(url: string): Promise<string> {
  const r = new IORedis(url);
  try {
    return /redis_version:(\S+)/.exec(await r.info('server'))?.[1] ?? 'unknown';
  } finally {
    r.disconnect();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
