// Poll, against a bare Express 5 route answering the same small JSON, in alternating slices.
import type { BenchContext } from '../lib/context';
import type { LoadResult } from '../lib/load';
import { freePort, startProcess, stopProcess, waitHealthy } from '../lib/procs';
import { figure } from '../lib/report';
import { CONNECTIONS, MiB, PHASE_SECONDS, WARMUP_SECONDS } from '../lib/settings';
import { fmt, pollLoad, Sampled, withRss } from '../lib/tasks';
import type { Section } from './section';

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

function merge(runs: Sampled<LoadResult>[]): LoadResult & { cpuMs: number; peak: number } {
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
}

async function run(ctx: BenchContext): Promise<void> {
  const { stack: s, log, add } = ctx;
  const submitted = await ctx.pendingTasks();
  const floorPort = await freePort();
  const expressFloor = startProcess('express-floor', 'bench/floors/express-floor.ts', { PORT: String(floorPort) }, s.logDir);
  const floorUrl = `http://127.0.0.1:${floorPort}`;
  await waitHealthy(`${floorUrl}/healthz`, expressFloor);
  // A pool of 1,000 tasks: at a few thousand polls a second each is asked about every second or
  // so, so most polls are answered from the 5 s cache and the rest from Postgres.
  const pollPool = submitted.filter((_, i) => i % Math.max(1, Math.floor(submitted.length / 1000)) === 0).slice(0, 1000);
  // The floor is asked the very requests the gateway is (the same 1,000 URLs and keys, in turn), by
  // the same load generator: undici, whose cost per response hardly depends on how many headers a
  // server sends (bench/lib/load.ts). Until 2026-11-23 autocannon sent the floor one fixed,
  // pre-serialised request and paid ~1 us per response header, so the figure measured the load
  // generator as much as the servers (docs/benchmark.md, "The poll floor").
  const floorLoad = (duration: number) => pollLoad(s, pollPool, { connections: CONNECTIONS, duration }, ['pending'], floorUrl);
  const floorPid = expressFloor.child.pid!;
  await floorLoad(WARMUP_SECONDS);
  await pollLoad(s, pollPool, { connections: CONNECTIONS, duration: WARMUP_SECONDS }, ['pending']);
  // Short slices in turn (floor, poll, floor, ... floor), so that what else the machine does
  // weighs on both alike: E P E P E P E.
  const SLICES = 3;
  const sliceS = Math.max(3, Math.round(PHASE_SECONDS / 2));
  log(`poll: GET /api/image/tasks/:id over ${pollPool.length} tasks vs a bare Express 5 route asked the same requests, ${CONNECTIONS} connections, ${SLICES} x ${sliceS} s each, alternating`);
  const floorRuns: Sampled<LoadResult>[] = [];
  const pollRuns: Sampled<LoadResult>[] = [];
  try {
    for (let i = 0; i < SLICES; i++) {
      floorRuns.push(await withRss(floorPid, () => floorLoad(sliceS)));
      pollRuns.push(await withRss(ctx.gatewayPid, () => pollLoad(s, pollPool, { connections: CONNECTIONS, duration: sliceS }, ['pending'])));
      log(`  express ${floorRuns[i].out.rps.toFixed(0)}/s, poll ${pollRuns[i].out.rps.toFixed(0)}/s`);
    }
    floorRuns.push(await withRss(floorPid, () => floorLoad(sliceS)));
  } finally {
    await stopProcess(expressFloor);
  }
  const poll = merge(pollRuns);
  const expressAll = merge(floorRuns);
  ctx.gatewayLoadPeaks.push(poll.peak);
  log(`  poll ${fmt(poll)}; gateway RSS peak ${(poll.peak / MiB).toFixed(0)} MiB`);
  log(`  express ${fmt(expressAll)}`);
  const express = { rps: expressAll.rps, cpuUs: (expressAll.cpuMs * 1000) / expressAll.total, rss: expressAll.peak };
  const pollCpuUs = (poll.cpuMs * 1000) / poll.total;
  // A cached poll is answered from memory with a header block built once per entry: it should cost no
  // more than a bare route's whole request (0.8 until 2026-11-28).
  add(figure('poll throughput', poll.rps, 'req/s', { floor: express.rps, target: 1.0, better: 'higher' }));
  add(figure('poll latency p50', poll.p50, 'ms', { better: 'lower' }));
  add(figure('gateway CPU per poll (vs the bare Express route)', pollCpuUs, 'us', { floor: express.cpuUs, better: 'lower' }));
  add(figure('poll latency p99 (highest of the slices)', poll.p99, 'ms', { better: 'lower' }));
  add(figure('poll responses failing their check', poll.bad + poll.errors, 'responses', { target: 0, better: 'lower' }));
  ctx.addFloor(figure('floor: bare Express 5 route', express.rps, 'req/s', { better: 'higher' }));
  ctx.addFloor(figure('floor: bare Express 5 route RSS peak', express.rss / MiB, 'MiB', { better: 'lower' }));
}

export const pollSection: Section = { name: 'poll', needsPendingTasks: true, run };
