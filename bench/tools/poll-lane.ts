// Gateway CPU per cached poll, the whole lane (docs/benchmark.md, "The poll path"): a child process
// per source tree runs that tree's gateway listener (apps/gateway/test/harness.ts: real Postgres and
// Redis, its own schema and key prefix, POLL_CACHE_MS of an hour, access log off as in the bench)
// with one account (a limit of a million a minute, so its reservations admit from memory) and one
// pending task polled once (the cache is filled); this process drives GET /api/image/tasks/<id>
// with undici, 32 connections each sending one request every 20 ms (a fixed pace, so each tree
// does the same work per request on a busy machine), and reads the child's CPU time per request
// (the child runs with the production image's --max-semi-space-size=16). Every answer must be a
// 200 (the tool fails otherwise); `viaExpress` says how many of the measured ones the lane left to
// Express (a reservation or key refresh that had not come back in time). poll-write.ts
// measures the write alone; this measures auth, rate limit, cache look-up, request id, metrics
// and the write, as the gateway runs them.
// The children stay up; the trees take turns, in a new order each round (ABBA...), ROUNDS times
// (default 5), with the per-round ratios to the first tree and the medians printed last.
//   npx tsx bench/tools/poll-lane.ts [rounds] [tree ...]     (trees default to this repository)
// A tree is a checkout with its node_modules (e.g. `git archive <commit> | tar -x -C dir` and
// `cp -al node_modules dir/`; its packages/db/src/generated too). The schemas are made in
// TEST_DATABASE_URL (default .../mediagen_bench_lane, created when missing).
import { fork, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { Pool } from 'undici';
import { createDatabaseIfMissing } from '../../scripts/prepare-db';

const CONNECTIONS = 32;
const PACE_MS = 20;
const SECONDS = 4;

async function serve(tree: string): Promise<void> {
  const { startHarness } = (await import(path.join(tree, 'apps/gateway/test/harness.ts'))) as typeof import('../../apps/gateway/test/harness');
  const { default: request } = await import('supertest');
  const h = await startHarness('poll-lane', { POLL_CACHE_MS: '3600000' });
  const a = await h.newAccount({ rateLimitPerMinute: 1_000_000 });
  const submitted = await request(h.app).post('/api/image/generate').set(a.auth).send({ model: 'image-b-2.5', prompt: 'a lighthouse', ratio: '16:9' });
  const taskId = submitted.body.taskId as string;
  await request(h.app).get(`/api/image/tasks/${taskId}`).set(a.auth).expect(200); // fills the cache
  const server = h.listen(0, '127.0.0.1');
  server.keepAliveTimeout = 65_000;
  await new Promise((r) => server.once('listening', r));
  let from = process.cpuUsage();
  let n = 0;
  let viaExpress = 0;
  server.on('request', () => n++);
  // Requests the lane handed to Express (a bench tool may wrap the app's handle to count them).
  const express = h.express as unknown as { handle: (...args: unknown[]) => unknown };
  const handle = express.handle;
  express.handle = function (this: unknown, ...args: unknown[]) {
    viaExpress++;
    return handle.apply(this, args);
  };
  process.on('message', (m) => {
    if (m === 'start') [from, n, viaExpress] = [process.cpuUsage(), 0, 0];
    if (m === 'stop') {
      const c = process.cpuUsage(from);
      process.send!({ usPerRequest: (c.user + c.system) / n, viaExpress });
    }
    if (m === 'exit') void h.close().finally(() => process.exit(0));
  });
  process.send!({ port: (server.address() as { port: number }).port, taskId, auth: a.auth.Authorization });
}

interface Child {
  tree: string;
  proc: ChildProcess;
  port: number;
  taskId: string;
  auth: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function start(tree: string): Promise<Child> {
  const proc = fork(__filename, ['serve', tree], { execArgv: ['--max-semi-space-size=16', '--import', 'tsx', ...(process.env.POLL_LANE_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.POLL_LANE_PROF}`] : [])], cwd: tree });
  const m = await new Promise<{ port: number; taskId: string; auth: string }>((r) => proc.once('message', r as never));
  return { tree, proc, ...m };
}

async function measure(c: Child): Promise<{ rps: number; usPerRequest: number; viaExpress: number }> {
  const pool = new Pool(`http://127.0.0.1:${c.port}`, { connections: CONNECTIONS });
  let stop = false;
  let done = 0;
  let wrong = 0;
  const loop = async () => {
    while (!stop) {
      const t = Date.now();
      const { statusCode, headers, body } = await pool.request({ path: `/api/image/tasks/${c.taskId}`, method: 'GET', headers: { authorization: c.auth } });
      await body.text();
      if (statusCode !== 200 || headers['ratelimit'] === undefined) wrong++;
      done++;
      const wait = PACE_MS - (Date.now() - t);
      if (wait > 0) await sleep(wait);
    }
  };
  const loops = Array.from({ length: CONNECTIONS }, loop);
  await sleep(1000); // warm-up
  c.proc.send('start');
  const t0 = Date.now();
  done = 0;
  await sleep(SECONDS * 1000);
  const got = await new Promise<{ usPerRequest: number; viaExpress: number }>((r) => {
    c.proc.once('message', r as never);
    c.proc.send('stop');
  });
  const rps = done / ((Date.now() - t0) / 1000);
  stop = true;
  await Promise.allSettled(loops);
  await pool.close();
  if (wrong > 0) throw new Error(`${c.tree}: ${wrong} answers were not a 200 with RateLimit`);
  return { rps: Math.round(rps), usPerRequest: Number(got.usPerRequest.toFixed(2)), viaExpress: got.viaExpress };
}

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 5);
  const trees = process.argv.length > 3 ? process.argv.slice(3).map((t) => path.resolve(t)) : [path.resolve(__dirname, '../..')];
  // The children's schemas go in a database of their own (the harness reads TEST_DATABASE_URL).
  process.env.TEST_DATABASE_URL ??= 'postgresql://postgres@127.0.0.1:5432/mediagen_bench_lane';
  await createDatabaseIfMissing(process.env.TEST_DATABASE_URL);
  const children: Child[] = [];
  for (const t of trees) children.push(await start(t));
  const all = children.map(() => [] as number[]);
  try {
    for (let i = 0; i < rounds; i++) {
      const order = children.map((_, k) => k);
      if (i % 2 === 1) order.reverse();
      const us: number[] = [];
      for (const k of order) {
        const r = await measure(children[k]);
        us[k] = r.usPerRequest;
        all[k].push(r.usPerRequest);
        console.log(JSON.stringify({ round: i + 1, tree: trees[k], ...r, load: os.loadavg()[0].toFixed(1) }));
      }
      if (us.length > 1) console.log(JSON.stringify({ round: i + 1, ratioToFirst: us.map((u) => Number((u / us[0]).toFixed(3))) }));
    }
  } finally {
    for (const c of children) c.proc.send('exit');
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(JSON.stringify({ medianUsPerRequest: Object.fromEntries(trees.map((t, k) => [t, median(all[k])])) }));
}

if (process.argv[2] === 'serve') void serve(process.argv[3]);
else void main();
