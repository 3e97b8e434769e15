// One end-to-end stack per test file: simulator, gateway and worker(s) as separate processes on
// the real Postgres (own schema) and Redis (own key prefix), with their own data directory.
// `env.REDIS_CLUSTER_NODES` runs every process (and `stack.redis`) on that Redis Cluster instead.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { parseClusterNodes } from '@mediagen/config';
import { createRedis, deleteKeysWithPrefix, RedisClient } from '@mediagen/queue';
import { createDb, Db } from '@mediagen/db';
import { createTestSchema, TestSchema } from '@mediagen/db/testing';
import { freePort, Proc, startProcess, stopProcess, tail, waitForHealthy } from './processes';

export interface StackOptions {
  workers?: number;
  /** Extra environment for every process (e.g. TASK_TIMEOUT_MS). */
  env?: Record<string, string>;
  /** A schema the test made (e.g. in a database of its own); dropped on stop like the default one. */
  schema?: TestSchema;
  /** The DATABASE_URL of the processes and of `db`, from the schema's (e.g. through a pooler). */
  databaseUrl?: (schemaUrl: string) => string;
  /** Runs last on stop, after the schema is dropped (e.g. stop the pooler, drop the database). */
  afterStop?: () => Promise<void>;
}

export interface Stack {
  gatewayUrl: string;
  simUrl: string;
  adminToken: string;
  prefix: string;
  db: Db;
  /** The stack's Redis: the machine's server, or the cluster of env.REDIS_CLUSTER_NODES. */
  redis: RedisClient;
  env: Record<string, string>;
  workers: Proc[];
  /** The gateway process (a test may signal it). */
  gateway: Proc;
  /** Every process started so far, with its log file. */
  procs: Proc[];
  startWorker(extraEnv?: Record<string, string>): Promise<Proc>;
  workerUrl(p: Proc): string;
  logs(): string;
  stop(): Promise<void>;
}

/** Fast settings for tests: short renders, quick stalled-job recovery, frequent maintenance. */
const TEST_ENV = {
  NODE_ENV: 'test',
  // Warnings and errors only, so a failure's output is not buried in JSON lines; a test that reads
  // info lines asks for them (env LOG_LEVEL), and E2E_LOG_LEVEL=info turns them on for a whole run.
  LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? 'warn',
  POLL_CACHE_MS: '0',
  ALLOW_PRIVATE_MEDIA_URLS: 'true',
  SIM_RENDER_MS: '300',
  WORKER_LOCK_MS: '2000',
  WORKER_STALLED_INTERVAL_MS: '1000',
  SWEEP_INTERVAL_MS: '500',
  RECONCILE_INTERVAL_MS: '1000',
  RECONCILE_GRACE_MS: '1500',
  INSTANT_WAIT_MS: '5000',
  SHUTDOWN_TIMEOUT_MS: '5000',
  WORKER_CONCURRENCY: '20',
};

export async function startStack(label: string, opts: StackOptions = {}): Promise<Stack> {
  const schema: TestSchema = opts.schema ?? (await createTestSchema(`e2e_${label}`));
  const databaseUrl = opts.databaseUrl ? opts.databaseUrl(schema.url) : schema.url;
  const prefix = `e2e-${label}-${randomBytes(3).toString('hex')}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `mg-e2e-${label}-`));
  const logDir = path.join(dataDir, 'logs');
  fs.mkdirSync(logDir);
  // A test may fix the simulator's port (e.g. to put a proxy in front of it in its channel file).
  const [port, simPort] = [await freePort(), Number(opts.env?.SIM_PORT) || (await freePort())];
  const adminToken = `admin-${randomBytes(12).toString('hex')}`;
  const env: Record<string, string> = {
    ...TEST_ENV,
    DATABASE_URL: databaseUrl,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_PREFIX: prefix,
    PORT: String(port),
    SIM_PORT: String(simPort),
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    ADMIN_TOKEN: adminToken,
    DATA_DIR: path.join(dataDir, 'data'),
    ...opts.env,
  };
  const procs: Proc[] = [];
  const workers: Proc[] = [];
  const workerPorts = new Map<Proc, number>();
  let n = 0;

  const startWorker = async (extraEnv: Record<string, string> = {}) => {
    const workerPort = await freePort();
    const p = startProcess(`worker-${++n}`, 'apps/worker/src/main.ts', { ...env, WORKER_PORT: String(workerPort), ...extraEnv }, logDir);
    procs.push(p);
    workers.push(p);
    workerPorts.set(p, workerPort);
    await waitForHealthy(`http://127.0.0.1:${workerPort}/healthz`, p);
    return p;
  };

  const db = createDb(databaseUrl, { poolSize: 5 });
  const nodes = env.REDIS_CLUSTER_NODES ? parseClusterNodes(env.REDIS_CLUSTER_NODES) : undefined;
  if (typeof nodes === 'string') throw new Error(`REDIS_CLUSTER_NODES: ${nodes}`);
  const redis = createRedis({ REDIS_URL: env.REDIS_URL, REDIS_CLUSTER_NODES: nodes }, 'consumer', { redis: { maxRetriesPerRequest: 3 } });
  const logs = () => procs.map((p) => `----- ${p.name}\n${tail(p.logFile, 30)}`).join('\n');

  const stop = async () => {
    await Promise.all(procs.map((p) => stopProcess(p)));
    await deleteKeysWithPrefix(redis, prefix);
    redis.disconnect();
    await db.$disconnect();
    await schema.drop();
    if (!process.env.KEEP_E2E_DATA) fs.rmSync(dataDir, { recursive: true, force: true });
    await opts.afterStop?.();
  };

  let gateway!: Proc;
  try {
    const sim = startProcess('sim', 'apps/provider-sim/src/main.ts', env, logDir);
    gateway = startProcess('gateway', 'apps/gateway/src/main.ts', env, logDir);
    procs.push(sim, gateway);
    await Promise.all([
      waitForHealthy(`http://127.0.0.1:${simPort}/healthz`, sim),
      waitForHealthy(`http://127.0.0.1:${port}/healthz`, gateway),
      ...Array.from({ length: opts.workers ?? 1 }, () => startWorker()),
    ]);
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }

  return {
    gatewayUrl: `http://127.0.0.1:${port}`,
    simUrl: `http://127.0.0.1:${simPort}`,
    adminToken,
    prefix,
    db,
    redis,
    env,
    workers,
    gateway,
    procs,
    startWorker,
    workerUrl: (p) => `http://127.0.0.1:${workerPorts.get(p)}`,
    logs,
    stop,
  };
}
