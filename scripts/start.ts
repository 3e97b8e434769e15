// `npm start`: finds or starts the engines (scripts/lib/engines.ts: an embedded PostgreSQL and a
// private redis-server when none is given or answering), prepares the database, then runs gateway + worker + provider simulator as
// separate processes, and prints one ready line with the URL, a development API key and the
// admin token. Ctrl-C (or SIGTERM) stops all three gracefully.
import '@mediagen/runtime/node-version'; // first: one readable line on a Node older than 24.11
import { spawn, ChildProcess, execFileSync } from 'node:child_process';
import path from 'node:path';
import { loadConfig, type Config } from '@mediagen/config';
import { describeOptimizer, loadOptimizerConfig } from '@mediagen/prompt-optimizer';
import { ensurePostgres, ensureRedis, EngineMissingError, type Engine } from './lib/engines';
import { appEnvFor, nodeFlagsFor } from './lib/node-flags';
import type { DevBootstrap } from './dev-bootstrap';

const root = path.resolve(__dirname, '..');
// `npm start` is the local development runner: it says so, for itself and the processes it starts
// (the development admin token and key exist only when development is named).
process.env.NODE_ENV ??= 'development';
let config: Config;
const children: ChildProcess[] = [];
/** Engines this process started, stopped last (after the apps have drained). */
const engines: Engine[] = [];

function run(name: string, file: string): ChildProcess {
  // `node --import tsx` runs the app in this very child, so signals reach the app itself
  // (the tsx CLI would put one more process in between).
  const child = spawn(process.execPath, [...nodeFlagsFor(file), '--import', 'tsx', path.join(root, file)], {
    cwd: root,
    env: { ...appEnvFor(file), ...process.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const prefix = (chunk: Buffer) =>
    chunk.toString().split('\n').filter(Boolean).map((l) => `[${name}] ${l}`).join('\n') + '\n';
  child.stdout!.on('data', (c: Buffer) => process.stdout.write(prefix(c)));
  child.stderr!.on('data', (c: Buffer) => process.stderr.write(prefix(c)));
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`[${name}] exited (${signal ?? code}); stopping the others`);
      stop(1);
    }
  });
  children.push(child);
  return child;
}

let stopping = false;
function stop(code = 0): void {
  if (stopping) return;
  stopping = true;
  const running = children.filter((c) => c.exitCode === null && c.signalCode === null);
  const appsDown = Promise.all(running.map((c) => new Promise((r) => c.once('exit', r))));
  for (const c of running) c.kill('SIGTERM');
  const grace = (config?.SHUTDOWN_TIMEOUT_MS ?? 10_000) + 2000;
  void Promise.race([appsDown, new Promise((r) => setTimeout(r, grace).unref())])
    .then(() => Promise.all(engines.map((e) => e.stop().catch((err) => console.error('stopping an engine:', err)))))
    .finally(() => process.exit(code));
  setTimeout(() => process.exit(code), grace + 15_000).unref();
}
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));

async function waitHealthy(url: string, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not answer within ${ms} ms`);
}

async function main(): Promise<void> {
  const dataDir = path.resolve(root, process.env.DATA_DIR ?? './data');
  const pg = await ensurePostgres(process.env, dataDir);
  if (pg.url !== process.env.DATABASE_URL) engines.push(pg);
  // A Redis Cluster (REDIS_CLUSTER_NODES) is used as given: REDIS_URL is then neither read nor started.
  const cluster = process.env.REDIS_CLUSTER_NODES?.trim();
  const redis: Engine = cluster
    ? { url: '', describe: `using the Redis Cluster of REDIS_CLUSTER_NODES (${cluster.replace(/\/\/[^@/]*@/g, '//***@')})`, stop: async () => {} }
    : await ensureRedis(process.env, dataDir);
  if (!cluster && redis.url !== process.env.REDIS_URL) engines.push(redis);
  // The apps read these from their environment (inherited from this process).
  process.env.DATABASE_URL = pg.url;
  if (!cluster) process.env.REDIS_URL = redis.url;
  config = loadConfig();
  if (stopping) return;
  // optimize_prompt: the simulator's optimizer by default in development; say which, or that it falls back.
  const optimizer = describeOptimizer(loadOptimizerConfig(config));

  execFileSync('npx', ['prisma', 'generate'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DATABASE_URL: config.DATABASE_URL } });
  const { prepareDatabase } = await import('./prepare-db');
  await prepareDatabase(config.DATABASE_URL);
  const { bootstrapDevAccount } = await import('./dev-bootstrap');
  const dev = config.NODE_ENV === 'production' ? null : await bootstrapDevAccount(config.DATABASE_URL, dataDir);

  run('sim', 'apps/provider-sim/src/main.ts');
  run('worker', 'apps/worker/src/main.ts');
  run('gateway', 'apps/gateway/src/main.ts');
  const base = `http://localhost:${config.PORT}`;
  await waitHealthy(`${base}/healthz`, 60_000);
  console.log(readyLines(base, dev, config, `${pg.describe}, ${redis.describe}`, optimizer));
}

/**
 * The READY block: where the API, its reference, the console and Bull Board are, and in development
 * the key and the console operator, both made valid by this start (dev-bootstrap.ts).
 */
function readyLines(base: string, dev: DevBootstrap | null, cfg: Config, engines: string, optimizer: string): string {
  const lines = [`\nREADY  ${base}  (API reference: ${base}/docs)`];
  lines.push(
    dev
      ? `       console: ${base}/console/  operator: ${dev.operator.name}  password: ${dev.operator.password}${dev.operator.reset ? '  (reset to this by this start)' : ''}`
      : `       console: ${base}/console/  (operators: npm run operator -- create <name> --role admin)`,
  );
  lines.push(`       queues: ${base}/admin/queues/  (Bull Board, from a console session)`);
  lines.push(`       account pages (sign up, keys, usage, top-up): ${base}/account`);
  if (dev)
    lines.push(
      `       API key: ${dev.apiKey}  (balance ${dev.balanceCents} cents)${dev.keyReactivated ? '  (re-activated: a production start against this database had revoked it)' : ''}`,
    );
  lines.push(`       admin token: ${cfg.NODE_ENV === 'production' ? '(from ADMIN_TOKEN)' : cfg.ADMIN_TOKEN}`);
  lines.push(`       engines: ${engines}`);
  lines.push(`       ${optimizer}\n`);
  return lines.join('\n');
}

main().catch((err) => {
  // A missing engine is one line saying how to get it, not a stack trace.
  console.error(err instanceof EngineMissingError ? err.message : err);
  stop(1);
});
