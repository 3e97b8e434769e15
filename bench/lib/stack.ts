// The stack under test: its own database (dropped and recreated each run), its own Redis prefix,
// its own file storage, free ports; gateway, worker and simulator as separate processes.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import IORedis from 'ioredis';
import { prepareDatabase, withServerAdmin } from '../../scripts/prepare-db';
import { freePort, Proc, startProcess, stopProcess, waitHealthy } from './procs';

export interface Stack {
  env: Record<string, string>;
  databaseUrl: string;
  redisUrl: string;
  prefix: string;
  base: string;
  adminToken: string;
  workDir: string;
  logDir: string;
  gateway: Proc | null;
  worker: Proc | null;
  sim: Proc | null;
}

/** Database URL of the benchmark: DATABASE_URL's server, database `mediagen_bench` unless BENCH_DATABASE_URL says otherwise. */
export function benchDatabaseUrl(): string {
  if (process.env.BENCH_DATABASE_URL) return process.env.BENCH_DATABASE_URL;
  const u = new URL(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/mediagen');
  u.pathname = '/mediagen_bench';
  u.searchParams.delete('schema');
  return u.toString();
}

async function recreateDatabase(databaseUrl: string): Promise<void> {
  await withServerAdmin(databaseUrl, (c, _name, quoted) => c.query(`DROP DATABASE IF EXISTS ${quoted} WITH (FORCE)`));
  await prepareDatabase(databaseUrl);
}

export async function createStack(): Promise<Stack> {
  const databaseUrl = benchDatabaseUrl();
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  await recreateDatabase(databaseUrl);
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mediagen-bench-'));
  const logDir = path.join(workDir, 'logs');
  fs.mkdirSync(logDir);
  const [port, simPort, workerPort] = [await freePort(), await freePort(), await freePort()];
  const prefix = `mgbench-${Date.now()}-${process.pid}`;
  const adminToken = randomBytes(24).toString('hex');
  const base = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    NODE_ENV: 'development',
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    REDIS_PREFIX: prefix,
    PORT: String(port),
    SIM_PORT: String(simPort),
    WORKER_PORT: String(workerPort),
    PUBLIC_BASE_URL: base,
    ADMIN_TOKEN: adminToken,
    DATA_DIR: path.join(workDir, 'data'),
    LOG_LEVEL: 'warn',
    // The simulator renders at once unless a prompt asks otherwise (#sim:delay).
    SIM_RENDER_MS: '0',
    SIM_LATENCY_MS: '0',
    // High enough that the request-rate limit never answers 429 during the run.
    RATE_LIMIT_PER_MINUTE: '1000000',
    // The same for /files (per address: every range request of the large-results section comes from 127.0.0.1).
    FILES_RATE_LIMIT_PER_MINUTE: '1000000',
    // The submit and write-floor phases leave pending tasks whose jobs the bench removes before the
    // worker starts; the reconciler must not bring them back during the run (it skips tasks
    // younger than its grace period).
    RECONCILE_INTERVAL_MS: '3600000',
    RECONCILE_GRACE_MS: '3600000',
    // The webhook-fairness section's receivers listen on loopback (callback_url to 127.0.0.1).
    ALLOW_PRIVATE_MEDIA_URLS: 'true',
  };
  for (const k of ['POLL_CACHE_MS', 'WORKER_CONCURRENCY', 'INSTANT_WAIT_MS', 'DB_PREPARED_STATEMENTS', 'DB_POOL_IDLE_MS'] as const) if (process.env[k]) env[k] = process.env[k]!;
  // Tracing a figure: BENCH_LOG_LEVEL=info (with BENCH_KEEP_LOGS=1) keeps every app's log lines.
  if (process.env.BENCH_LOG_LEVEL) env.LOG_LEVEL = process.env.BENCH_LOG_LEVEL;
  return { env, databaseUrl, redisUrl, prefix, base, adminToken, workDir, logDir, gateway: null, worker: null, sim: null };
}

/** Extra Node flags for one app, e.g. BENCH_GATEWAY_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof". */
const nodeArgsFor = (app: string): string[] => (process.env[`BENCH_${app.toUpperCase()}_NODE_ARGS`] ?? '').split(' ').filter(Boolean);

export async function startSimAndGateway(s: Stack): Promise<void> {
  s.sim = startProcess('provider-sim', 'apps/provider-sim/src/main.ts', s.env, s.logDir, nodeArgsFor('sim'));
  s.gateway = startProcess('gateway', 'apps/gateway/src/main.ts', s.env, s.logDir, nodeArgsFor('gateway'));
  await Promise.all([
    waitHealthy(`http://127.0.0.1:${s.env.SIM_PORT}/healthz`, s.sim),
    waitHealthy(`${s.base}/readyz`, s.gateway),
  ]);
}

export async function startWorker(s: Stack): Promise<void> {
  s.worker = startProcess('worker', 'apps/worker/src/main.ts', s.env, s.logDir, nodeArgsFor('worker'));
  await waitHealthy(`http://127.0.0.1:${s.env.WORKER_PORT}/healthz`, s.worker);
}

/** Stops the apps, removes every Redis key of the run and the run's files (logs kept on failure). */
export async function destroyStack(s: Stack, keepLogs: boolean): Promise<void> {
  await Promise.all([s.gateway, s.worker, s.sim].filter((p): p is Proc => !!p).map((p) => stopProcess(p)));
  await deleteRedisKeys(s.redisUrl, `${s.prefix}*`);
  fs.rmSync(path.join(s.workDir, 'data'), { recursive: true, force: true });
  if (!keepLogs) fs.rmSync(s.workDir, { recursive: true, force: true });
}

export async function deleteRedisKeys(redisUrl: string, pattern: string): Promise<number> {
  const redis = new IORedis(redisUrl, { maxRetriesPerRequest: 3 });
  let n = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      if (keys.length) n += await redis.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return n;
}
