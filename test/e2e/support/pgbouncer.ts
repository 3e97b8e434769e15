// A private PgBouncer (Debian's `pgbouncer` package) in transaction pooling mode in front of the
// test Postgres: its own folder, port and log, a small pool so server connections really pass
// from one client to another, no admin console. Without the binary the tests that need it are
// skipped with the reason printed (.ci/run installs the package).
import { execFileSync, spawn, ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { parseDatabaseUrl } from '@mediagen/db';
import { baseTestDatabaseUrl } from '@mediagen/db/testing';
import { freePort, tail } from './processes';

const CANDIDATES = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer', '/usr/local/bin/pgbouncer'];

/** The test Postgres server itself (no schema), which PgBouncer fronts and databases are made on. */
export const testServerUrl = parseDatabaseUrl(baseTestDatabaseUrl()).connectionString;

/** Runs `fn` on a direct connection to the test server (creating and dropping databases, counting). */
export async function onTestServer<T>(fn: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ connectionString: testServerUrl });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

export function pgbouncerBinary(): string | null {
  return CANDIDATES.find((p) => fs.existsSync(p)) ?? null;
}

/** The reason the PgBouncer tests are skipped on this machine (printed), or null to run them. */
export function pgbouncerMissing(): string | null {
  if (pgbouncerBinary()) return null;
  const why = `PgBouncer tests skipped: no pgbouncer binary in ${CANDIDATES.join(', ')} (apt-get install -y pgbouncer; .ci/run does it)`;
  console.warn(why);
  return why;
}

export interface PgBouncer {
  port: number;
  /** `databaseUrl` (a database on the server PgBouncer fronts) as reached through PgBouncer. */
  via(databaseUrl: string): string;
  log(): string;
  stop(): Promise<void>;
}

/** PgBouncer refuses to run as root: it then runs as `postgres`, which must own its folder. */
function runAsUser(): { user: string; uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { user: 'postgres', uid, gid };
}

/**
 * `ignoreStartupParameters`: PgBouncer's setting of that name (e.g. 'options': the client's startup
 * options are accepted and dropped, as many deployments configure it); unset: PgBouncer's default.
 */
export async function startPgBouncer(serverUrl: string, opts: { poolSize: number; ignoreStartupParameters?: string }): Promise<PgBouncer> {
  const bin = pgbouncerBinary();
  if (!bin) throw new Error('pgbouncer is not installed');
  const server = new URL(serverUrl);
  const user = decodeURIComponent(server.username || 'postgres');
  const password = decodeURIComponent(server.password);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-pgbouncer-'));
  const port = await freePort();
  const quote = (v: string) => `'${v.replace(/'/g, "''")}'`;
  const target = [`host=${server.hostname || '127.0.0.1'}`, `port=${server.port || 5432}`, `user=${user}`, password ? `password=${quote(password)}` : '']
    .filter(Boolean)
    .join(' ');
  // Every database of the server, under its own name; clients are trusted (loopback, test only).
  // No other setting: the service must work with the defaults.
  fs.writeFileSync(
    path.join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = ${target}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'userlist.txt')}`,
      'admin_users =',
      'stats_users =',
      'pool_mode = transaction',
      ...(opts.ignoreStartupParameters ? [`ignore_startup_parameters = ${opts.ignoreStartupParameters}`] : []),
      `default_pool_size = ${opts.poolSize}`,
      'min_pool_size = 0',
      'reserve_pool_size = 0',
      'max_client_conn = 1000',
      `logfile = ${path.join(dir, 'pgbouncer.log')}`,
      `pidfile = ${path.join(dir, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  fs.writeFileSync(path.join(dir, 'userlist.txt'), `"${user}" ""\n`);
  const as = runAsUser();
  if (as) {
    for (const f of ['', 'pgbouncer.ini', 'userlist.txt']) fs.chownSync(path.join(dir, f), as.uid, as.gid);
  }
  const args = [...(as ? ['-u', as.user] : []), path.join(dir, 'pgbouncer.ini')];
  const child: ChildProcess = spawn(bin, args, { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const logFile = path.join(dir, 'pgbouncer.log');
  const log = () => (fs.existsSync(logFile) ? tail(logFile, 40) : '(no log)');

  const until = Date.now() + 10_000;
  while (!fs.existsSync(logFile) || !/listening on 127\.0\.0\.1:/.test(fs.readFileSync(logFile, 'utf8'))) {
    if (child.exitCode !== null || Date.now() > until) {
      child.kill('SIGKILL');
      throw new Error(`pgbouncer did not start:\n${log()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }

  return {
    port,
    via(databaseUrl) {
      const u = new URL(databaseUrl);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    log,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGINT'); // immediate shutdown
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
