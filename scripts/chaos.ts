// `npm run chaos`: the service under load while its infrastructure fails, then the books are
// checked (docs/reliability.md). Outside `npm test`: it takes a few minutes, and loopback only.
//
// Started here, as processes: the provider simulator, the gateway, two workers, and a private
// redis-server on a spare port (so it can be killed and restarted empty without touching the
// machine's Redis). Postgres is the machine's, in a database of its own whose TimeZone is
// America/New_York, reached through a TCP proxy this script can cut or freeze.
//
// Clients (one per account, each at its in-progress limit) submit with idempotency ids and retry
// every answer that is not final with the same id, while the fault plan runs: kill -9 of workers
// and of the gateway, Redis killed and restarted empty (with and without worker restarts),
// Postgres connections cut, a Postgres partition. Then every task must end and:
//   - the ledger is exact (balance == sum of entries, one charge per task, one refund per failed
//     task, in-progress counters == open tasks)
//   - no 402 (every account can pay for everything it submits)
//   - one task per idempotency id
//   - no render submitted twice upstream (renders per task <= attempts per task)
//   - every completed task's files are served; a failed task's are not.
// Figures are printed; the exit code is 1 on any violation.
//
// Size: CHAOS_CLIENTS (default 12), CHAOS_LOAD_SECONDS (default 60; the fault plan fits in it).
import '@mediagen/runtime/node-version'; // first: one readable line on a Node older than 24.11
import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createDb, Db } from '@mediagen/db';
import { createTestSchema, createTimeZoneDatabase } from '@mediagen/db/testing';
import { freePort, Proc, startProcess, waitHealthy } from './lib/processes';
import { startTcpProxy } from '../test/e2e/support/tcp-proxy';
import { ledgerViolations } from '../test/e2e/support/ledger';

const CLIENTS = Number(process.env.CHAOS_CLIENTS ?? 12);
const LOAD_SECONDS = Number(process.env.CHAOS_LOAD_SECONDS ?? 60);
const PER_ACCOUNT_LIMIT = 5;
const SETTLE_DEADLINE_MS = 180_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (msg: string) => console.log(`[chaos ${new Date().toISOString().slice(11, 19)}] ${msg}`);

// ---------- a private redis-server that can be killed and restarted empty ----------
function startRedis(port: number, dir: string): ChildProcess {
  return spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
}
async function waitRedis(port: number): Promise<void> {
  const { default: IORedis } = await import('ioredis');
  for (let i = 0; i < 100; i++) {
    const r = new IORedis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    r.on('error', () => undefined); // not up yet: tried again below
    try {
      await r.connect();
      await r.ping();
      r.disconnect();
      return;
    } catch {
      r.disconnect();
      await sleep(100);
    }
  }
  throw new Error('redis-server did not start');
}

// ---------- clients ----------
interface Figures {
  submits: number;
  created: number;
  replays: number;
  answers: Map<number | string, number>;
  false402: number;
  keyConflicts: string[];
}

async function http(method: string, url: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number | string; body: any }> {
  try {
    const res = await fetch(url, { method, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(15_000) });
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
    return { status: res.status, body: parsed };
  } catch (err) {
    return { status: (err as Error).name === 'TimeoutError' ? 'timeout' : 'network', body: null };
  }
}

function requestFor(client: number, n: number): { endpoint: 'video' | 'image'; body: Record<string, unknown> } {
  const r = (client * 7919 + n * 104729) % 100;
  const delay = 300 + ((client * 31 + n * 17) % 2500);
  // Mostly good renders; some fail everywhere (refunded), some flaky, some slow to answer the submit.
  const tag = r < 8 ? ' #sim:fail' : r < 18 ? ' #sim:flaky=2' : r < 24 ? ' #sim:slow-submit=400' : '';
  const prompt = `chaos ${client}/${n}${tag} #sim:delay=${delay}`;
  if (r % 2 === 0) return { endpoint: 'image', body: { model: 'image-b-2.5', prompt } };
  return { endpoint: 'video', body: { model: 'video-a-h3', prompt, duration: 2, resolution: '480p' } };
}

async function runClient(base: () => string, key: string, client: number, until: number, fig: Figures, taskOfKey: Map<string, string>): Promise<void> {
  let n = 0;
  while (Date.now() < until) {
    const idem = `c${client}-${n}`;
    const { endpoint, body } = requestFor(client, n);
    for (;;) {
      fig.submits += 1;
      const res = await http('POST', `${base()}/api/${endpoint}/generate`, { Authorization: `Bearer ${key}`, 'Idempotency-Key': idem }, body);
      fig.answers.set(res.status, (fig.answers.get(res.status) ?? 0) + 1);
      if (res.status === 200) {
        const seen = taskOfKey.get(`${client}:${idem}`);
        if (seen && seen !== res.body.taskId) fig.keyConflicts.push(`${idem}: ${seen} and ${res.body.taskId}`);
        taskOfKey.set(`${client}:${idem}`, res.body.taskId);
        if (res.body.idempotentReplay) fig.replays += 1;
        else fig.created += 1;
        break;
      }
      if (res.status === 402) fig.false402 += 1;
      if (res.status === 400 || res.status === 422) throw new Error(`client ${client}: ${res.status} ${JSON.stringify(res.body)}`);
      // 429 (at the limit), 409 (first submit still inside), 503, 5xx, network errors: same id, later.
      await sleep(res.status === 429 ? 300 : 200);
      if (Date.now() > until + 60_000) return; // give up on this id: the run is over
    }
    n += 1;
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-chaos-'));
  const logDir = path.join(dir, 'logs');
  fs.mkdirSync(logDir);
  log(`logs in ${logDir}`);

  // Postgres: a database whose TimeZone is not UTC, reached through a proxy we can cut.
  const tzDb = await createTimeZoneDatabase('America/New_York');
  const schema = await createTestSchema('chaos', { baseUrl: tzDb.url });
  const direct: Db = createDb(schema.url, { poolSize: 4 });
  const pgUrl = new URL(schema.url);
  const pgProxy = await startTcpProxy(Number(pgUrl.port || 5432), pgUrl.hostname);
  const viaProxy = new URL(schema.url);
  viaProxy.hostname = '127.0.0.1';
  viaProxy.port = String(pgProxy.port);

  const redisPort = await freePort();
  let redis = startRedis(redisPort, dir);
  await waitRedis(redisPort);

  const [gwPort, simPort] = [await freePort(), await freePort()];
  const adminToken = `admin-${randomBytes(12).toString('hex')}`;
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    DATABASE_URL: viaProxy.toString(),
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    REDIS_PREFIX: 'chaos',
    PORT: String(gwPort),
    SIM_PORT: String(simPort),
    PUBLIC_BASE_URL: `http://127.0.0.1:${gwPort}`,
    ADMIN_TOKEN: adminToken,
    DATA_DIR: path.join(dir, 'data'),
    ALLOW_PRIVATE_MEDIA_URLS: 'true',
    POLL_CACHE_MS: '0',
    INSTANT_WAIT_MS: '0',
    SIM_RENDER_MS: '500',
    WORKER_LOCK_MS: '3000',
    WORKER_STALLED_INTERVAL_MS: '1500',
    SWEEP_INTERVAL_MS: '2000',
    RECONCILE_INTERVAL_MS: '2000',
    RECONCILE_GRACE_MS: '3000',
    TASK_TIMEOUT_MS: '150000',
    WORKER_CONCURRENCY: '20',
    SHUTDOWN_TIMEOUT_MS: '3000',
    DB_CONNECT_TIMEOUT_MS: '2000',
    DB_QUERY_TIMEOUT_MS: '5000',
    DB_STATEMENT_TIMEOUT_MS: '4000',
    IDEMPOTENCY_STALE_MS: '10000',
  };

  const procs: Proc[] = [];
  const startWorker = async (name: string): Promise<Proc> => {
    const port = await freePort();
    const p = startProcess(name, 'apps/worker/src/main.ts', { ...env, WORKER_PORT: String(port) }, logDir);
    procs.push(p);
    await waitHealthy(`http://127.0.0.1:${port}/healthz`, p);
    return p;
  };
  const startGateway = async (): Promise<Proc> => {
    const p = startProcess(`gateway-${procs.filter((x) => x.name.startsWith('gateway')).length + 1}`, 'apps/gateway/src/main.ts', env, logDir);
    procs.push(p);
    await waitHealthy(`http://127.0.0.1:${gwPort}/healthz`, p);
    return p;
  };
  const sim = startProcess('sim', 'apps/provider-sim/src/main.ts', env, logDir);
  procs.push(sim);
  await waitHealthy(`http://127.0.0.1:${simPort}/healthz`, sim);
  let gateway = await startGateway();
  let workers = [await startWorker('worker-1'), await startWorker('worker-2')];
  const base = () => `http://127.0.0.1:${gwPort}`;
  const admin = { Authorization: `Bearer ${adminToken}` };

  const keys: { id: string; key: string }[] = [];
  for (let c = 0; c < CLIENTS; c++) {
    const acc = await http('POST', `${base()}/admin/accounts`, admin, { name: `chaos-${c}`, balanceCents: 1_000_000, maxConcurrentTasks: PER_ACCOUNT_LIMIT });
    const key = await http('POST', `${base()}/admin/accounts/${acc.body.id}/api-keys`, admin);
    keys.push({ id: acc.body.id, key: key.body.key });
  }
  log(`stack up: gateway :${gwPort}, 2 workers, simulator, redis :${redisPort}, Postgres (TimeZone America/New_York) via proxy :${pgProxy.port}`);

  const fig: Figures = { submits: 0, created: 0, replays: 0, answers: new Map(), false402: 0, keyConflicts: [] };
  const taskOfKey = new Map<string, string>();
  const loadStart = Date.now();
  const until = loadStart + LOAD_SECONDS * 1000;
  const clients = keys.map((k, c) => runClient(base, k.key, c, until, fig, taskOfKey));

  // ---------- the fault plan (fractions of the load phase) ----------
  const faults: string[] = [];
  const at = (fraction: number) => sleep(Math.max(0, loadStart + (until - loadStart) * fraction - Date.now()));
  const kill9 = async (p: Proc) => {
    p.child.kill('SIGKILL');
    await p.exited;
  };
  const restartRedisEmpty = async () => {
    redis.kill('SIGKILL');
    await new Promise((r) => redis.once('exit', r));
    await sleep(1500);
    redis = startRedis(redisPort, dir);
    await waitRedis(redisPort);
  };
  const plan = (async () => {
    await at(0.12);
    faults.push('kill -9 worker-1, restarted 2 s later');
    await kill9(workers[0]);
    await sleep(2000);
    workers[0] = await startWorker('worker-1b');
    await at(0.22);
    faults.push('kill -9 gateway, restarted at once');
    await kill9(gateway);
    gateway = await startGateway();
    await at(0.32);
    faults.push('Redis killed and restarted empty; workers NOT restarted');
    await restartRedisEmpty();
    await at(0.45);
    faults.push('Postgres connections cut for 3 s');
    await pgProxy.cut();
    await sleep(3000);
    await pgProxy.restore();
    await at(0.55);
    faults.push('Postgres partition (connections hang) for 4 s');
    pgProxy.freeze();
    await sleep(4000);
    await pgProxy.restore();
    await at(0.68);
    faults.push('Redis killed and restarted empty, and both workers kill -9 and restarted');
    await Promise.all(workers.map(kill9));
    await restartRedisEmpty();
    workers = [await startWorker('worker-3'), await startWorker('worker-4')];
    await at(0.8);
    faults.push('kill -9 worker and gateway together, restarted');
    await Promise.all([kill9(workers[1]), kill9(gateway)]);
    gateway = await startGateway();
    workers[1] = await startWorker('worker-5');
  })();
  plan.catch((err) => log(`fault plan failed: ${(err as Error).message}`));
  await Promise.all([...clients, plan]);
  for (const f of faults) log(`fault: ${f}`);
  log(`load over: ${fig.submits} submit requests, ${fig.created} tasks created, ${fig.replays} replays`);

  // ---------- every task ends ----------
  const settleUntil = Date.now() + SETTLE_DEADLINE_MS;
  let open = -1;
  for (;;) {
    open = await direct.task.count({ where: { status: { in: ['pending', 'processing'] } } });
    if (open === 0 || Date.now() > settleUntil) break;
    await sleep(1000);
  }
  log(`tasks still open ${Math.round((Date.now() - until) / 1000)} s after the load ended: ${open}`);
  // Let in-flight attempt bookkeeping finish before counting renders.
  await sleep(1500);

  // ---------- the books ----------
  const violations: string[] = [];
  if (open !== 0) violations.push(`${open} tasks never ended`);
  const ledger = await ledgerViolations(direct);
  violations.push(...ledger.slice(0, 20));
  if (ledger.length > 20) violations.push(`... ${ledger.length - 20} more ledger violations`);
  if (fig.false402) violations.push(`${fig.false402} answers were 402 while every balance covered the cost`);
  violations.push(...fig.keyConflicts.map((c) => `one idempotency id, two tasks: ${c}`));

  const tasks = await direct.task.findMany({ select: { id: true, accountId: true, status: true, resultUrls: true, errorCode: true } });
  const byStatus = tasks.reduce<Record<string, number>>((m, t) => ((m[t.status] = (m[t.status] ?? 0) + 1), m), {});
  if (tasks.length !== taskOfKey.size) violations.push(`${tasks.length} tasks for ${taskOfKey.size} idempotency ids`);

  const attempts = await direct.taskAttempt.groupBy({ by: ['taskId'], _count: { _all: true } });
  const attemptsOf = new Map(attempts.map((a) => [a.taskId, a._count._all]));
  let rendersTotal = 0;
  let doubleRenders = 0;
  for (const t of tasks) {
    const s = await http('GET', `http://127.0.0.1:${simPort}/stats/refs/${t.id}`, {});
    const renders = Array.isArray(s.body?.renders) ? s.body.renders.length : 0;
    rendersTotal += renders;
    if (renders > (attemptsOf.get(t.id) ?? 0)) {
      doubleRenders += 1;
      if (doubleRenders <= 10) violations.push(`task ${t.id}: ${renders} renders upstream for ${attemptsOf.get(t.id) ?? 0} attempts`);
    }
  }

  let filesServed = 0;
  let filesMissing = 0;
  let failedServed = 0;
  for (const t of tasks) {
    if (t.status === 'completed') {
      for (const u of t.resultUrls) {
        const r = await fetch(u).catch(() => null);
        if (r?.status === 200) filesServed += 1;
        else {
          filesMissing += 1;
          if (filesMissing <= 10) violations.push(`completed task ${t.id}: ${u} answered ${r?.status ?? 'nothing'}`);
        }
        await r?.arrayBuffer().catch(() => undefined);
      }
    } else if (t.status === 'failed') {
      for (const ext of ['png', 'mp4']) {
        const r = await fetch(`${base()}/files/results/${t.id}/0.${ext}`).catch(() => null);
        if (r?.status === 200) failedServed += 1;
        await r?.arrayBuffer().catch(() => undefined);
      }
    }
  }
  if (failedServed) violations.push(`${failedServed} results of failed tasks served`);

  const sums = await direct.$queryRaw<{ charges: bigint; refunds: bigint; failed: bigint }[]>`
    SELECT (SELECT count(*) FROM "LedgerEntry" WHERE kind = 'charge') AS charges,
           (SELECT count(*) FROM "LedgerEntry" WHERE kind = 'refund') AS refunds,
           (SELECT count(*) FROM "Task" WHERE status = 'failed') AS failed`;

  // Evidence that the recovery did not depend on restarts: workers that noticed the lost schedulers.
  const redeclared = procs
    .filter((p) => p.name.startsWith('worker'))
    .reduce((n, p) => n + (fs.readFileSync(p.logFile, 'utf8').match(/maintenance schedules were missing/g)?.length ?? 0), 0);
  const reenqueued = procs
    .filter((p) => p.name.startsWith('worker'))
    .reduce((n, p) => n + (fs.readFileSync(p.logFile, 'utf8').match(/unfinished task had no live job; re-enqueued/g)?.length ?? 0), 0);

  const answers = [...fig.answers.entries()].sort((a, b) => String(a[0]).localeCompare(String(b[0]))).map(([k, v]) => `${k}: ${v}`).join(', ');
  console.log('\n===== chaos figures =====');
  console.log(`clients ${CLIENTS} (limit ${PER_ACCOUNT_LIMIT} in progress each), load ${LOAD_SECONDS} s, database TimeZone America/New_York`);
  console.log(`faults: ${faults.length} (${faults.join('; ')})`);
  console.log(`submit requests ${fig.submits}; answers ${answers}`);
  console.log(`tasks ${tasks.length} (${Object.entries(byStatus).map(([k, v]) => `${k} ${v}`).join(', ')}); idempotency ids ${taskOfKey.size}; replays ${fig.replays}`);
  console.log(`ledger: charges ${sums[0].charges}, refunds ${sums[0].refunds} for ${sums[0].failed} failed tasks; ledger violations ${ledger.length}`);
  console.log(`402 answers ${fig.false402}; tasks never ended ${open}`);
  console.log(`renders upstream ${rendersTotal} for ${attempts.reduce((s, a) => s + a._count._all, 0)} attempts; tasks rendered more often than attempted ${doubleRenders}`);
  console.log(`result files served ${filesServed}, missing ${filesMissing}; results of failed tasks served ${failedServed}`);
  console.log(`maintenance schedulers re-declared after a Redis wipe ${redeclared} times; tasks re-enqueued by the reconciler ${reenqueued}`);
  console.log(`wall time ${Math.round((Date.now() - started) / 1000)} s`);
  console.log(violations.length ? `\nVIOLATIONS (${violations.length}):\n  ${violations.join('\n  ')}` : '\nno violations');

  // ---------- tear down ----------
  for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM');
  await Promise.all(procs.map((p) => Promise.race([p.exited, sleep(5000)])));
  for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  redis.kill('SIGKILL');
  await pgProxy.close();
  await direct.$disconnect();
  await tzDb.drop().catch((err: Error) => log(`database not dropped: ${err.message}`));
  if (!process.env.KEEP_CHAOS_DATA && violations.length === 0) fs.rmSync(dir, { recursive: true, force: true });
  process.exit(violations.length ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(2);
});
