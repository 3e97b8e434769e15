// `npm start` on a bare machine (issue 15.9): no DATABASE_URL / REDIS_URL and nothing answering on
// the probed default addresses (moved by DEV_PG_PORT / DEV_REDIS_PORT to ports where nothing
// listens) -> it starts an embedded PostgreSQL and a private redis-server under DATA_DIR, migrates,
// prints READY naming both engines, serves an image task to completion with the printed key, and
// stops both engines on SIGTERM.
import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { answers, ensureRedis, EngineMissingError } from '../../scripts/lib/engines';
import { freePort } from './support/processes';
import { eventually } from './support/wait';

jest.setTimeout(240_000);

const root = path.join(__dirname, '..', '..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-bare-'));
// mkdtemp makes it 0700; as root the embedded server runs as `postgres` and must reach DATA_DIR.
fs.chmodSync(dir, 0o755);
let child: ChildProcess | undefined;
let output = '';

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    await new Promise((r) => child!.once('exit', r));
  }
  if (!process.env.KEEP_E2E_DATA) fs.rmSync(dir, { recursive: true, force: true });
});

test('starts embedded PostgreSQL and redis-server, serves a task with the printed key, stops both on SIGTERM', async () => {
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
    DATA_DIR: path.join(dir, 'data'),
    PORT: String(port),
    SIM_PORT: String(simPort),
    WORKER_PORT: String(workerPort),
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    SIM_RENDER_MS: '300',
    SHUTDOWN_TIMEOUT_MS: '5000',
    LOG_LEVEL: 'warn',
  });
  child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/start.ts')], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
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
  expect(pgDir).toBe(path.join(dir, 'data', 'pg'));
  expect(redisDir).toBe(path.join(dir, 'data', 'redis'));
  expect(fs.existsSync(path.join(pgDir, 'PG_VERSION'))).toBe(true);
  expect(await answers('127.0.0.1', Number(pgPort))).toBe(true);
  expect(await answers('127.0.0.1', Number(redisPort))).toBe(true);

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
