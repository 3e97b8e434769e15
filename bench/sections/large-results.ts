// Section `large-results`: ten concurrent 500 MiB video results, streamed from
// the simulator through the worker's download path into disk storage, then served to ten clients
// by the gateway's /files route in 8 MiB ranges (two of them abandoning a range mid-way, as a
// player does when it seeks). What it shows: memory stays bounded on both sides (worker RSS over
// its idle level, gateway RSS over its idle level), aborted transfers give their descriptors back,
// and throughput against floors taken in the same run (a bare node:http stream copy into files;
// the same ranges read straight from the stored files). Figures and targets: docs/benchmark.md.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { Db } from '@mediagen/db';
import type { BenchContext } from '../lib/context';
import type { BenchAccount } from '../lib/admin';
import { figure } from '../lib/report';
import { cpuMs, freePort, runToJson, sleep, startProcess, stopProcess, waitHealthy } from '../lib/procs';
import { idleRss, jsonAuth, withRss } from '../lib/tasks';
import type { Section } from './section';

const MiB = 1024 * 1024;
const COUNT = Number(process.env.BENCH_LARGE_COUNT ?? 10);
const RESULT_MIB = Number(process.env.BENCH_LARGE_MIB ?? 500);
const RANGE = 8 * MiB;
/** Clients that abandon a range half-way through the file and stop (a player seeking away). */
const ABORTING = Math.min(2, COUNT);
const WORKER_TARGET_MIB = 64;
/** BENCH_LARGE_RANGES=0: the worker's download figures only, without the gateway's range passes. */
const RANGES = process.env.BENCH_LARGE_RANGES !== '0';
const GATEWAY_TARGET_MIB = 32;

const mib = (b: number) => b / MiB;
/** Descriptors of `pid` open on files under `root` (the stored results), from /proc. */
const openFiles = (pid: number, root: string): number => {
  let n = 0;
  try {
    for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
      try {
        if (fs.readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith(root + path.sep)) n += 1;
      } catch {
        // closed while we looked
      }
    }
  } catch {
    return NaN;
  }
  return n;
};

/** Seedance through the ModelArk protocol: the result is a URL the worker downloads. */
const videoBody = (i: number, resultMib: number) => ({
  model: 'video-b-2.5',
  tier: 'third-party',
  prompt: `a slow pan over a harbour, large result ${i} ${Date.now()} #sim:result-mib=${resultMib}`,
  duration: 5,
  resolution: '480p',
  ratio: '16:9',
});

async function submitVideo(base: string, account: BenchAccount, i: number, resultMib = RESULT_MIB): Promise<string> {
  const res = await fetch(`${base}/api/video/generate`, { method: 'POST', headers: jsonAuth(account), body: JSON.stringify(videoBody(i, resultMib)) });
  const body = (await res.json()) as { taskId?: string };
  if (res.status !== 200 || !body.taskId) throw new Error(`large-results: submit answered ${res.status} ${JSON.stringify(body)}`);
  return body.taskId;
}

async function settled(db: Db, ids: string[], timeoutMs: number) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const rows = await db.task.findMany({ where: { id: { in: ids } }, select: { id: true, status: true, errorCode: true, resultUrls: true, finishedAt: true } });
    if (rows.length === ids.length && rows.every((r) => r.status === 'completed' || r.status === 'failed')) return rows;
    if (Date.now() > until) throw new Error(`large-results: tasks not settled after ${timeoutMs} ms: ${rows.map((r) => r.status).join(',')}`);
    await sleep(200);
  }
}

interface RangeRun {
  bytes: number;
  ranges: number;
  aborted: number;
  problems: string[];
}

/**
 * GETs `url` in RANGE-sized ranges on one keep-alive connection, the first `limit` of them;
 * `abortAt` (a range index) abandons that range half-way and stops.
 */
function rangeClient(url: string, size: number, agent: http.Agent, abortAt: number | null, into: RangeRun, limit = Infinity): Promise<void> {
  const ranges = Math.min(limit, Math.ceil(size / RANGE));
  const one = (k: number) =>
    new Promise<void>((resolve, reject) => {
      const start = k * RANGE;
      const end = Math.min(size, start + RANGE) - 1;
      const req = http.get(url, { agent, headers: { Range: `bytes=${start}-${end}` } }, (res) => {
        const want = `bytes ${start}-${end}/${size}`;
        if (res.statusCode !== 206 || res.headers['content-range'] !== want) into.problems.push(`${res.statusCode} ${res.headers['content-range']} for ${want}`);
        let got = 0;
        res.on('data', (c: Buffer) => {
          if (k === 0 && got === 0 && c.toString('latin1', 4, 8) !== 'ftyp') into.problems.push('the first range does not start with an MP4 ftyp box');
          got += c.length;
          into.bytes += c.length;
          if (k === abortAt && got >= RANGE / 2) {
            into.aborted += 1;
            req.destroy();
            resolve();
          }
        });
        res.on('end', () => {
          if (got !== end - start + 1) into.problems.push(`range ${want}: ${got} bytes`);
          into.ranges += 1;
          resolve();
        });
        res.on('error', () => resolve());
      });
      req.on('error', (e) => (k === abortAt ? resolve() : reject(e)));
    });
  return (async () => {
    for (let k = 0; k < ranges; k++) {
      await one(k);
      if (k === abortAt) return;
    }
  })();
}

export async function largeResults(ctx: BenchContext): Promise<void> {
  const s = ctx.stack;
  const workerPid = await ctx.ensureWorker();
  const [account] = await ctx.accounts('large-results', 1);
  const filesRoot = path.join(s.env.DATA_DIR, 'files');
  const resultDirs: string[] = [];
  try {
    // ---- worker: COUNT downloads at once ---------------------------------------------------
    ctx.log(`large results: bare stream-copy floor, ${COUNT} x ${RESULT_MIB} MiB over node:http into files`);
    const copyFloor = await runToJson<{ bytes: number; seconds: number; mbPerS: number; rssIncrease: number; cpuMs: number }>(
      'stream-copy-floor',
      'bench/floors/stream-copy-floor.ts',
      { COUNT: String(COUNT), MIB: String(RESULT_MIB), DIR: path.join(s.workDir, 'stream-copy-floor') },
      s.logDir,
    );
    ctx.log(`  ${copyFloor.mbPerS.toFixed(0)} MB/s; its RSS +${mib(copyFloor.rssIncrease).toFixed(1)} MiB`);
    // One small large result first: first-use costs (code paths, pools, JIT) are not what we measure.
    const [warm] = await settled(ctx.db, [await submitVideo(s.base, account, -1, 16)], 5 * 60_000);
    resultDirs.push(path.join(filesRoot, 'results', warm.id));
    const workerIdle = await idleRss(workerPid);
    ctx.log(`large results: ${COUNT} video tasks whose results are ${RESULT_MIB} MiB each; worker idle RSS ${mib(workerIdle).toFixed(0)} MiB`);
    const t0 = Date.now();
    const simPid = s.sim!.child.pid!;
    const simCpu0 = cpuMs(simPid) ?? 0;
    const run = await withRss(workerPid, async () => {
      const ids = await Promise.all(Array.from({ length: COUNT }, (_, i) => submitVideo(s.base, account, i)));
      return settled(ctx.db, ids, 15 * 60_000);
    });
    const tasks = run.out;
    const simCpu = (cpuMs(simPid) ?? 0) - simCpu0;
    for (const t of tasks) resultDirs.push(path.join(filesRoot, 'results', t.id));
    const failed = tasks.filter((t) => t.status !== 'completed');
    const seconds = (Math.max(...tasks.map((t) => t.finishedAt?.getTime() ?? Date.now())) - t0) / 1000;
    const files = tasks.filter((t) => t.status === 'completed').map((t) => path.join(filesRoot, new URL((t.resultUrls as string[])[0]).pathname.replace(/^\/files\//, '')));
    const sizes = files.map((f) => fs.statSync(f).size);
    const stored = sizes.reduce((a, b) => a + b, 0);
    const size = RESULT_MIB * MiB;
    const wrongSize = sizes.filter((n) => n !== size).length;
    const workerUp = run.peak - workerIdle;
    ctx.log(
      `  ${tasks.length - failed.length}/${COUNT} completed${failed.length ? ` (failed: ${failed.map((t) => t.errorCode).join(', ')})` : ''} in ${seconds.toFixed(1)} s, ` +
        `${(stored / 1e6 / seconds).toFixed(0)} MB/s; worker RSS peak ${mib(run.peak).toFixed(0)} MiB (+${mib(workerUp).toFixed(1)} MiB over idle)`,
    );
    ctx.add(figure(`worker RSS increase during ${COUNT} concurrent ${RESULT_MIB} MiB result downloads`, mib(workerUp), 'MiB', { target: WORKER_TARGET_MIB, better: 'lower' }));
    ctx.add(figure(`result download throughput, ${COUNT} x ${RESULT_MIB} MiB (submit to all stored)`, stored / 1e6 / seconds, 'MB/s', { floor: copyFloor.mbPerS, better: 'higher' }));
    ctx.add(
      figure('worker + simulator CPU per MB of large result (vs the bare stream copy, both ends)', (run.cpuMs + simCpu) / (stored / 1e6), 'ms/MB', {
        floor: copyFloor.cpuMs / (copyFloor.bytes / 1e6),
        better: 'lower',
      }),
    );
    ctx.add(figure('large results not completed or stored at the wrong size', failed.length + wrongSize, 'tasks', { target: 0, better: 'lower' }));
    ctx.addFloor(figure(`floor: bare node:http stream copy into files, ${COUNT} x ${RESULT_MIB} MiB`, copyFloor.mbPerS, 'MB/s', { better: 'higher' }));
    ctx.addFloor(figure('floor: bare stream copy, RSS increase of its process', mib(copyFloor.rssIncrease), 'MiB', { better: 'lower' }));
    if (files.length === 0 || !RANGES) return;

    // ---- gateway: the files back, by range --------------------------------------------------
    // The same clients against a bare node:http range server on the same files, before and after.
    const floorPort = await freePort();
    const floor = startProcess('range-floor', 'bench/floors/range-floor.ts', { PORT: String(floorPort), ROOT: filesRoot }, s.logDir);
    await waitHealthy(`http://127.0.0.1:${floorPort}/healthz`, floor);
    const done = tasks.filter((t) => t.status === 'completed').map((t) => (t.resultUrls as string[])[0]);
    const keys = done.map((u) => new URL(u).pathname.replace(/^\/files\//, ''));
    const half = Math.floor(Math.ceil(size / RANGE) / 2);
    const pass = async (pid: number, urls: string[]) => {
      // Warm-up: two ranges per file, unmeasured.
      const warmAgent = new http.Agent({ keepAlive: true, maxSockets: urls.length });
      await Promise.all(urls.map((u) => rangeClient(u, size, warmAgent, null, { bytes: 0, ranges: 0, aborted: 0, problems: [] }, 2)));
      warmAgent.destroy();
      await sleep(1000);
      const idle = await idleRss(pid);
      const agent = new http.Agent({ keepAlive: true, maxSockets: urls.length });
      const got: RangeRun = { bytes: 0, ranges: 0, aborted: 0, problems: [] };
      const sampled = await withRss(pid, async () => {
        const t = process.hrtime.bigint();
        await Promise.all(urls.map((u, i) => rangeClient(u, size, agent, i < ABORTING ? half : null, got)));
        return Number(process.hrtime.bigint() - t) / 1e9;
      });
      agent.destroy();
      // Aborted responses close their file streams: once the sockets are gone no descriptor is left over.
      await sleep(1000);
      return { ...got, cpuMsPerMb: sampled.cpuMs / (got.bytes / 1e6), mbPerS: got.bytes / 1e6 / sampled.out, seconds: sampled.out, idle, up: sampled.peak - idle, peak: sampled.peak, filesLeft: openFiles(pid, filesRoot) };
    };
    const say = (who: string, r: Awaited<ReturnType<typeof pass>>) =>
      ctx.log(
        `  ${who}: ${r.ranges} ranges, ${(r.bytes / 1e6).toFixed(0)} MB in ${r.seconds.toFixed(1)} s, ${r.mbPerS.toFixed(0)} MB/s, ${r.cpuMsPerMb.toFixed(2)} ms CPU/MB, ${r.aborted} aborted; ` +
          `RSS idle ${mib(r.idle).toFixed(0)} MiB, peak +${mib(r.up).toFixed(1)} MiB; ${r.filesLeft} result files left open` +
          (r.problems.length ? `; problems: ${r.problems.slice(0, 3).join('; ')}` : ''),
      );
    const floorUrls = keys.map((k) => `http://127.0.0.1:${floorPort}/${k}`);
    ctx.log(`large results: ${done.length} clients read them in ${mib(RANGE)} MiB ranges (${ABORTING} abandon a range half-way): bare range server, gateway /files, bare range server`);
    let floorBefore, gw, floorAfter;
    try {
      floorBefore = await pass(floor.child.pid!, floorUrls);
      say('bare range server', floorBefore);
      gw = await pass(ctx.gatewayPid, done);
      say('gateway /files', gw);
      floorAfter = await pass(floor.child.pid!, floorUrls);
      say('bare range server', floorAfter);
    } finally {
      await stopProcess(floor);
    }
    const floorMbPerS = (floorBefore.bytes + floorAfter.bytes) / 1e6 / (floorBefore.seconds + floorAfter.seconds);
    const floorUp = Math.max(floorBefore.up, floorAfter.up);
    ctx.add(figure(`gateway RSS increase serving ${done.length} x ${RESULT_MIB} MiB in ${mib(RANGE)} MiB ranges`, mib(gw.up), 'MiB', { target: GATEWAY_TARGET_MIB, better: 'lower' }));
    ctx.add(figure('gateway range download throughput (vs a bare node:http range server)', gw.mbPerS, 'MB/s', { floor: floorMbPerS, better: 'higher' }));
    const floorCpu = ((floorBefore.cpuMsPerMb * floorBefore.bytes + floorAfter.cpuMsPerMb * floorAfter.bytes) / (floorBefore.bytes + floorAfter.bytes));
    ctx.add(figure('gateway CPU per MB served by range (vs the bare range server)', gw.cpuMsPerMb, 'ms/MB', { floor: floorCpu, better: 'lower' }));
    ctx.add(figure('result files the gateway holds open after the downloads (2 aborted)', gw.filesLeft, 'files', { target: 0, better: 'lower' }));
    ctx.add(figure('range responses failing their check', gw.problems.length, 'responses', { target: 0, better: 'lower' }));
    ctx.addFloor(figure('floor: bare node:http range server on the stored files', floorMbPerS, 'MB/s', { better: 'higher' }));
    ctx.addFloor(figure('floor: bare range server, RSS increase (the larger of its two passes)', mib(floorUp), 'MiB', { better: 'lower' }));
  } finally {
    // 10 x 500 MiB on disk: gone as soon as the section is done, whatever happened.
    for (const d of resultDirs) fs.rmSync(d, { recursive: true, force: true });
  }
}

export const largeResultsSection: Section = { name: 'large-results', run: largeResults };
