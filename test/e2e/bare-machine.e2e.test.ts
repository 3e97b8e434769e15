// `npm start` on a bare machine: no DATABASE_URL / REDIS_URL and nothing answering on
// the probed default addresses (moved by DEV_PG_PORT / DEV_REDIS_PORT to ports where nothing
// listens) -> it starts an embedded PostgreSQL and a private redis-server under DATA_DIR, migrates,
// prints READY naming both engines, serves an image task to completion with the printed key, and
// stops both engines on SIGTERM. It runs from a copy of the repository inside a mode-700 folder, as a
// clone under /root would be: as root, the embedded server runs as `postgres`, which cannot enter it,
// so the start gives that user its own copy of the binaries and data folder (EMBEDDED_PG_HOME).
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { answers, ensureRedis, EngineMissingError } from '../../scripts/lib/engines';
import { freePort } from './support/processes';
import { eventually } from './support/wait';

jest.setTimeout(240_000);

const root = path.join(__dirname, '..', '..');
// mkdtemp makes it 0700, like root's home folder.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-bare-'));
const clone = path.join(dir, 'mediagen');
// Where the start puts what the `postgres` user must reach (default /var/lib/mediagen).
const pgHome = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-bare-pghome-'));
fs.chmodSync(pgHome, 0o755);

/** The repository's files (committed or not, minus ignored ones) and a hard-linked node_modules. */
function copyRepository(): void {
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const f of files) {
    if (!fs.existsSync(path.join(root, f))) continue; // deleted in the work tree
    fs.mkdirSync(path.dirname(path.join(clone, f)), { recursive: true });
    fs.copyFileSync(path.join(root, f), path.join(clone, f));
  }
  // Hard links: the 26k files of node_modules in about a second, keeping their modes (-a).
  execFileSync('cp', ['-al', path.join(root, 'node_modules'), path.join(clone, 'node_modules')]);
}
let child: ChildProcess | undefined;
let output = '';

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    await new Promise((r) => child!.once('exit', r));
  }
  if (!process.env.KEEP_E2E_DATA) for (const d of [dir, pgHome]) fs.rmSync(d, { recursive: true, force: true });
});

test('starts embedded PostgreSQL and redis-server, serves a task with the printed key, stops both on SIGTERM', async () => {
  copyRepository();
  expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
  const [pgProbe, redisProbe, port, simPort, workerPort] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
  // Nothing listens on the probed ports (freePort closed them again).
  expect(await answers('127.0.0.1', pgProbe)).toBe(false);
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  Object.assign(env, {
    NODE_ENV: 'development',
    DEV_PG_PORT: String(pgProbe),
    DEV_REDIS_PORT: String(redisProbe),
    EMBEDDED_PG_HOME: pgHome,
    PORT: String(port),
    SIM_PORT: String(simPort),
    WORKER_PORT: String(workerPort),
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    SIM_RENDER_MS: '300',
    SHUTDOWN_TIMEOUT_MS: '5000',
    LOG_LEVEL: 'warn',
  });
  delete env.DATA_DIR; // the default, ./data inside the private clone
  child = spawn(process.execPath, ['--import', 'tsx', path.join(clone, 'scripts/start.ts')], { cwd: clone, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((r) => child!.once('exit', (code) => r(code)));

  const ready = await eventually(
    'the READY line',
    async () => {
      if (child!.exitCode !== null) throw new Error(`npm start exited early:\n${output.slice(-3000)}`);
      return /READY[\s\S]*engines: [^\n]*\n/.exec(output)?.[0];
    },
    200_000,
  );
  const engines = /engines: embedded PostgreSQL (\d+) \(([^,]+), port (\d+)\), redis-server \(([^,]+), port (\d+)\)/.exec(ready);
  expect(engines).not.toBeNull();
  const [, , pgDir, pgPort, redisDir, redisPort] = engines!;
  const asRoot = os.userInfo().uid === 0;
  // As root the data lives where `postgres` can reach it; otherwise in DATA_DIR/pg as before.
  if (asRoot) expect(path.dirname(pgDir)).toBe(pgHome);
  else expect(pgDir).toBe(path.join(clone, 'data', 'pg'));
  if (asRoot) expect(fs.readdirSync(pgHome).some((f) => f.startsWith('postgresql-17'))).toBe(true);
  expect(redisDir).toBe(path.join(clone, 'data', 'redis'));
  expect(fs.existsSync(path.join(pgDir, 'PG_VERSION'))).toBe(true);
  expect(await answers('127.0.0.1', Number(pgPort))).toBe(true);
  expect(await answers('127.0.0.1', Number(redisPort))).toBe(true);

  // The console is named on the READY line with a development operator that signs in as printed.
  const consoleLine = /console: (http\S+\/console\/)  operator: (\S+)  password: (\S+)/.exec(ready);
  expect(consoleLine).not.toBeNull();
  const [, consoleUrl, operatorName, operatorPassword] = consoleLine!;
  expect(consoleUrl).toBe(`http://localhost:${port}/console/`);
  const form = await fetch(`http://127.0.0.1:${port}/console/login`);
  const cookie = form.headers.get('set-cookie')!.split(';')[0];
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1];
  const signIn = await fetch(`http://127.0.0.1:${port}/console/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { Cookie: cookie, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, name: operatorName, password: operatorPassword }).toString(),
  });
  expect(signIn.status).toBe(303);

  const apiKey = /API key: (\S+)/.exec(ready)![1];
  const auth = { Authorization: `Bearer ${apiKey}` };
  const submit = await fetch(`http://127.0.0.1:${port}/api/image/generate`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ model: 'image-b-2.5', prompt: 'a lighthouse at dusk', ratio: '16:9' }),
  });
  expect(submit.status).toBeLessThan(300);
  const { taskId } = (await submit.json()) as { taskId: string };
  const done = await eventually(
    'the task to complete',
    async () => {
      const r = (await (await fetch(`http://127.0.0.1:${port}/api/image/tasks/${taskId}`, { headers: auth })).json()) as { status: string; resultUrls?: string[] };
      if (r.status === 'failed') throw new Error(`task failed: ${JSON.stringify(r)}`);
      return r.status === 'completed' ? r : undefined;
    },
    60_000,
  );
  expect(done.resultUrls).toHaveLength(1);

  child.kill('SIGTERM');
  expect(await exited).toBe(0);
  // Both engines it started are down: nothing answers on their ports any more.
  expect(await answers('127.0.0.1', Number(pgPort))).toBe(false);
  expect(await answers('127.0.0.1', Number(redisPort))).toBe(false);
  expect(fs.existsSync(path.join(pgDir, 'postmaster.pid'))).toBe(false);
});

test('without redis-server on PATH and no Redis answering, it stops with one line saying how to get one', async () => {
  const probe = await freePort();
  const err = await ensureRedis({ PATH: path.join(dir, 'empty-bin'), DEV_REDIS_PORT: String(probe) }, path.join(dir, 'data2')).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(EngineMissingError);
  const message = (err as Error).message;
  expect(message).not.toContain('\n');
  expect(message).toMatch(/apt-get install redis-server/);
  expect(message).toMatch(/brew install redis/);
  expect(message).toMatch(/docker run/);
});
