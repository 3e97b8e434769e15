// Section `scale`: two gateways and three workers on the same Redis and
// Postgres. What it shows:
// - submit and poll throughput with the load spread over both gateways, against the same load on
//   one gateway, in alternating slices of one run. Every process shares the same 2 cores here, so
//   the ratio measures the overhead of a second instance (its own connections, cache copies, rate
//   reservations), not a speed-up: more gateways pay off only with more cores or machines.
// - the poll cache across instances: tasks polled on both gateways while they render, and the time
//   from each task's completion (its finishedAt) until each gateway first answers `completed`, and
//   the gap between the two gateways.
// - the per-account rate limit across instances: a burst of twice the limit spread over both
//   gateways, admitted requests against the limit (docs/operations.md, "Poll cache and rate limits
//   across gateways").
// Submits run with the task queue paused, as in the submit section (no render work competes); the
// jobs are dropped after each submit slice and the queue resumed for the consistency check.
import { Queue } from 'bullmq';
import IORedis from 'ioredis';
import type { BenchContext } from '../lib/context';
import { QUEUES } from '@mediagen/queue';
import { BenchAccount, createAccounts } from '../lib/admin';
import type { LoadResult } from '../lib/load';
import { freePort, Proc, sleep, startProcess, stopProcess, waitHealthy } from '../lib/procs';
import { figure } from '../lib/report';
import { BALANCE, CONNECTIONS, IMAGE_BODY, PHASE_SECONDS, WARMUP_SECONDS } from '../lib/settings';
import type { Stack } from '../lib/stack';
import { percentile } from '../lib/stats';
import { auth, jsonAuth, pollLoad, submitLoad, Submitted } from '../lib/tasks';
import type { Section } from './section';

// The extra processes share the server with the first gateway and worker (20 connections each) and the
// bench's own clients: at 20 each, five processes could ask for more than a stock Postgres's 100.
const SMALL_POOL = { DB_POOL_SIZE: '12' };
const CONSISTENCY_TASKS = Number(process.env.BENCH_SCALE_TASKS ?? 8);
const POLL_EVERY_MS = 20;
const RATE_LIMIT = 600;
/** Requests one gateway may refuse early per other gateway: its batch (1% of the limit) minus one. */
const RATE_MARGIN = Math.max(1, Math.min(100, Math.floor(RATE_LIMIT / 100))) - 1;
/**
 * Two gateways answer `completed` within this of each other: one poll round trip on a loaded
 * 2-core machine (a poll's p99 under the throughput load above is several hundred ms) plus the
 * task event's way to the other gateway.
 */
const GAP_TARGET_MS = 1000;

interface Combined {
  rps: number;
  bad: number;
  p50: number;
  p99: number;
}
const combine = (runs: LoadResult[]): Combined => ({
  rps: runs.reduce((n, r) => n + r.rps, 0),
  bad: runs.reduce((n, r) => n + r.bad + r.errors, 0),
  p50: Math.max(...runs.map((r) => r.p50)),
  p99: Math.max(...runs.map((r) => r.p99)),
});
const meanOf = (xs: Combined[]): Combined => ({
  rps: xs.reduce((n, x) => n + x.rps, 0) / xs.length,
  bad: xs.reduce((n, x) => n + x.bad, 0),
  p50: Math.max(...xs.map((x) => x.p50)),
  p99: Math.max(...xs.map((x) => x.p99)),
});

/** One gateway at full load, then both at half each, alternating (1 2 1 2 1): the machine's other work weighs on both. */
async function alternate(log: (m: string) => void, what: string, one: (c: number) => Promise<LoadResult>, two: (c: number) => Promise<LoadResult>[]) {
  const ones: Combined[] = [];
  const twos: Combined[] = [];
  for (let i = 0; i < 5; i++) {
    if (i % 2 === 0) ones.push(combine([await one(CONNECTIONS)]));
    else twos.push(combine(await Promise.all(two(CONNECTIONS / 2))));
    const last = i % 2 === 0 ? ones.at(-1)! : twos.at(-1)!;
    log(`  ${what} ${i % 2 === 0 ? 'one gateway ' : 'two gateways'}: ${last.rps.toFixed(0)}/s p50=${last.p50}ms p99=${last.p99}ms bad=${last.bad}`);
  }
  return { one: meanOf(ones), two: meanOf(twos) };
}

/** The send time of the first poll on `base` that answered `completed` (null if none did before `until`). */
async function pollUntilCompleted(base: string, account: BenchAccount, taskId: string, until: number): Promise<number | null> {
  while (Date.now() < until) {
    const sent = Date.now();
    try {
      const res = await fetch(`${base}/api/image/tasks/${taskId}`, { headers: auth(account) });
      const body = (await res.json()) as { status?: string };
      if (body.status === 'completed') return sent;
    } catch {
      // a refused connection under load: try again
    }
    await sleep(POLL_EVERY_MS);
  }
  return null;
}

export async function scale(ctx: BenchContext): Promise<void> {
  const s = ctx.stack;
  const pollCacheMs = Number(s.env.POLL_CACHE_MS ?? 5000);
  const pool = (await ctx.pendingTasks()).slice(0, 1000);
  await ctx.ensureWorker();
  const port2 = await freePort();
  const s2: Stack = { ...s, base: `http://127.0.0.1:${port2}` };
  const extra: Proc[] = [];
  const redis = new IORedis(s.redisUrl, { maxRetriesPerRequest: null });
  const tasksQueue = new Queue(QUEUES.tasks, { connection: redis, prefix: s.prefix });
  try {
    ctx.log('scale: starting a second gateway and two more workers on the same Redis and Postgres');
    extra.push(startProcess('gateway-2', 'apps/gateway/src/main.ts', { ...s.env, ...SMALL_POOL, PORT: String(port2) }, s.logDir));
    await waitHealthy(`${s2.base}/readyz`, extra[0]);
    for (const n of [2, 3]) {
      const port = await freePort();
      const w = startProcess(`worker-${n}`, 'apps/worker/src/main.ts', { ...s.env, ...SMALL_POOL, WORKER_PORT: String(port) }, s.logDir);
      extra.push(w);
      await waitHealthy(`http://127.0.0.1:${port}/healthz`, w);
    }
    const submitAccounts = await ctx.accounts('scale-submit', CONNECTIONS);

    // ---- throughput: one gateway vs both ----------------------------------------------------
    const slice = Math.max(3, Math.round(PHASE_SECONDS / 2));
    await pollLoad(s2, pool, { connections: CONNECTIONS / 2, duration: WARMUP_SECONDS }, ['pending']);
    ctx.log(`scale: poll over ${pool.length} pending tasks, ${CONNECTIONS} connections on one gateway vs ${CONNECTIONS / 2} on each of two, ${slice} s slices`);
    const poll = await alternate(
      ctx.log,
      'poll',
      (c) => pollLoad(s, pool, { connections: c, duration: slice }, ['pending']),
      (c) => [pollLoad(s, pool, { connections: c, duration: slice }, ['pending']), pollLoad(s2, pool, { connections: c, duration: slice }, ['pending'])],
    );
    await tasksQueue.pause();
    const into: Submitted[] = [];
    const dropJobs = async () => {
      await tasksQueue.drain(true);
    };
    await submitLoad(s2, submitAccounts, IMAGE_BODY, { connections: CONNECTIONS / 2, duration: WARMUP_SECONDS }, into);
    ctx.log(`scale: submit (task queue paused), ${CONNECTIONS} connections on one gateway vs ${CONNECTIONS / 2} on each of two, ${slice} s slices`);
    const half = submitAccounts.length / 2;
    const submit = await alternate(
      ctx.log,
      'submit',
      (c) => submitLoad(s, submitAccounts, IMAGE_BODY, { connections: c, duration: slice }, into).finally(dropJobs),
      (c) => [
        submitLoad(s, submitAccounts.slice(0, half), IMAGE_BODY, { connections: c, duration: slice }, into),
        submitLoad(s2, submitAccounts.slice(half), IMAGE_BODY, { connections: c, duration: slice }, into),
      ],
    );
    await dropJobs();
    await tasksQueue.resume();
    const note = 'both gateways vs one, same load; 2 shared cores: overhead, not speed-up';
    ctx.add(figure(`scale: submit throughput, ${note}`, submit.two.rps, 'req/s', { floor: submit.one.rps, better: 'higher' }));
    ctx.add(figure(`scale: poll throughput, ${note}`, poll.two.rps, 'req/s', { floor: poll.one.rps, better: 'higher' }));
    ctx.add(figure('scale: submit p99 over two gateways (vs one)', submit.two.p99, 'ms', { floor: submit.one.p99, better: 'lower' }));
    ctx.add(figure('scale: poll p99 over two gateways (vs one)', poll.two.p99, 'ms', { floor: poll.one.p99, better: 'lower' }));
    ctx.add(figure('scale: throughput responses failing their check', submit.one.bad + submit.two.bad + poll.one.bad + poll.two.bad, 'responses', { target: 0, better: 'lower' }));

    // ---- poll cache across instances ----------------------------------------------------------
    const [owner] = await ctx.accounts('scale-consistency', 1);
    ctx.log(`scale: ${CONSISTENCY_TASKS} tasks rendering 2-3 s, each polled on both gateways every ${POLL_EVERY_MS} ms until both answer completed`);
    const rows = await Promise.all(
      Array.from({ length: CONSISTENCY_TASKS }, async (_, i) => {
        await sleep(i * 150);
        const res = await fetch(`${s.base}/api/image/generate`, {
          method: 'POST',
          headers: jsonAuth(owner),
          body: JSON.stringify({ ...IMAGE_BODY, prompt: `consistency ${i} ${Date.now()} #sim:delay=${2000 + i * 100}` }),
        });
        const { taskId } = (await res.json()) as { taskId: string };
        const submitted = Date.now();
        const until = Date.now() + 60_000;
        const [a, b] = await Promise.all([pollUntilCompleted(s.base, owner, taskId, until), pollUntilCompleted(s2.base, owner, taskId, until)]);
        const t = await ctx.db.task.findUniqueOrThrow({ where: { id: taskId }, select: { finishedAt: true, status: true } });
        return { a, b, submitted, finished: t.finishedAt?.getTime() ?? null };
      }),
    );
    const ok = rows.filter((r) => r.a !== null && r.b !== null && r.finished !== null) as { a: number; b: number; submitted: number; finished: number }[];
    const renders = ok.map((r) => r.finished - r.submitted).sort((x, y) => x - y);
    const gaps = ok.map((r) => Math.abs(r.a - r.b)).sort((x, y) => x - y);
    const stale = ok.flatMap((r) => [r.a - r.finished, r.b - r.finished]).sort((x, y) => x - y);
    ctx.log(
      `  ${ok.length}/${rows.length} seen completed on both; gap between the gateways p50=${percentile(gaps, 50)}ms max=${gaps.at(-1)}ms; ` +
        `completion to a gateway's first completed answer (by the poll's send time) p50=${percentile(stale, 50)}ms max=${stale.at(-1)}ms ` +
        `(polls every ${POLL_EVERY_MS} ms; submit to completion p50=${percentile(renders, 50)}ms)`,
    );
    ctx.add(figure('scale: gap between two gateways first answering completed (max)', gaps.at(-1) ?? NaN, 'ms', { target: GAP_TARGET_MS, better: 'lower' }));
    ctx.add(figure('scale: task completion to a gateway answering completed (p50)', percentile(stale, 50), 'ms', { better: 'lower' }));
    // Settlement drops every gateway's cached answer (docs/operations.md): the bound is the event's
    // way plus one poll round trip, as for the gap; without the event it would be POLL_CACHE_MS.
    ctx.add(figure('scale: task completion to a gateway answering completed (max)', stale.at(-1) ?? NaN, 'ms', { target: Math.min(GAP_TARGET_MS, pollCacheMs), better: 'lower' }));
    ctx.add(figure('scale: tasks never seen completed on both gateways', rows.length - ok.length, 'tasks', { target: 0, better: 'lower' }));

    // ---- rate limit across instances ----------------------------------------------------------
    const [limited] = await createAccounts(s.base, s.adminToken, 1, 'scale-rate', { balanceCents: BALANCE, maxConcurrentTasks: 10_000, rateLimitPerMinute: RATE_LIMIT });
    const target = pool[0];
    let admitted = 0;
    let refused = 0;
    let other = 0;
    let firstOther = '';
    const burst = async (base: string, n: number) => {
      for (let i = 0; i < n; i++) {
        // Another account's task is a 404 after the rate limit: a cheap request that still counts.
        const res = await fetch(`${base}/api/image/tasks/${target.taskId}`, { headers: auth(limited) });
        const text = await res.text();
        if (res.status === 429) refused += 1;
        else if (res.status === 404) admitted += 1;
        else {
          other += 1;
          firstOther ||= `${res.status} ${text.slice(0, 200)}`;
        }
      }
    };
    ctx.log(`scale: ${2 * RATE_LIMIT} requests of one account (limit ${RATE_LIMIT}/min) over both gateways, 8 connections each`);
    await Promise.all([...Array.from({ length: 8 }, () => burst(s.base, (2 * RATE_LIMIT) / 16)), ...Array.from({ length: 8 }, () => burst(s2.base, (2 * RATE_LIMIT) / 16))]);
    ctx.log(`  admitted ${admitted}, refused ${refused} (429), other ${other}${firstOther ? ` (first: ${firstOther})` : ''}`);
    ctx.add(figure(`scale: requests admitted through two gateways (vs the per-account limit of ${RATE_LIMIT}/min)`, admitted, 'requests', { floor: RATE_LIMIT, target: 1, better: 'lower' }));
    // docs/operations.md: a gateway reserves 1% of the limit at a time (6 of 600), so with two
    // gateways up to 5 requests may be refused while the other still holds reserved ones.
    ctx.add(figure(`scale: requests refused below the limit (limit minus admitted; documented margin ${RATE_MARGIN})`, Math.max(0, RATE_LIMIT - admitted), 'requests', { target: RATE_MARGIN, better: 'lower' }));
    ctx.add(figure('scale: rate-limit burst answers neither admitted nor 429', other, 'responses', { target: 0, better: 'lower' }));
  } finally {
    await tasksQueue.resume().catch(() => undefined);
    await tasksQueue.close();
    redis.disconnect();
    await Promise.all(extra.map((p) => stopProcess(p)));
  }
}

export const scaleSection: Section = { name: 'scale', needsPendingTasks: true, run: scale };
