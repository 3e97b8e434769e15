// `npm start`: prepares the local database, then runs gateway + worker + provider simulator as
// separate processes, and prints one ready line with the URL, a development API key and the
// admin token. Ctrl-C (or SIGTERM) stops all three gracefully.
import { spawn, ChildProcess, execFileSync } from 'node:child_process';
import path from 'node:path';
import { loadConfig } from '@mediagen/config';

const root = path.resolve(__dirname, '..');
// `npm start` is the local development runner: it says so, for itself and the processes it starts
// (the development admin token and key exist only when development is named, issue 11.17).
process.env.NODE_ENV ??= 'development';
const config = loadConfig();
const children: ChildProcess[] = [];

function run(name: string, file: string): ChildProcess {
  // `node --import tsx` runs the app in this very child, so signals reach the app itself
  // (the tsx CLI would put one more process in between).
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, file)], {
    cwd: root,
    env: process.env,
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
  for (const c of children) c.kill('SIGTERM');
  let left = children.length;
  if (left === 0) process.exit(code);
  for (const c of children) c.on('exit', () => --left === 0 && process.exit(code));
  setTimeout(() => process.exit(code), config.SHUTDOWN_TIMEOUT_MS + 2000).unref();
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
  execFileSync('npx', ['prisma', 'generate'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DATABASE_URL: config.DATABASE_URL } });
  const { prepareDatabase } = await import('./prepare-db');
  await prepareDatabase(config.DATABASE_URL);
  const { bootstrapDevAccount } = await import('./dev-bootstrap');
  const dev = config.NODE_ENV === 'production' ? null : await bootstrapDevAccount(config.DATABASE_URL);

  run('sim', 'apps/provider-sim/src/main.ts');
  run('worker', 'apps/worker/src/main.ts');
  run('gateway', 'apps/gateway/src/main.ts');
  const base = `http://localhost:${config.PORT}`;
  await waitHealthy(`${base}/healthz`, 60_000);
  console.log(
    `\nREADY  ${base}  (API reference: ${base}/docs, queues: ${base}/admin/queues)\n` +
      (dev ? `       API key: ${dev.apiKey}  (balance ${dev.balanceCents} cents)\n` : '') +
      `       admin token: ${config.NODE_ENV === 'production' ? '(from ADMIN_TOKEN)' : config.ADMIN_TOKEN}\n`,
  );
}

main().catch((err) => {
  console.error(err);
  stop(1);
});
