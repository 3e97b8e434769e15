// Child processes of the apps, for end-to-end tests and the benchmark: each app runs as its own
// Node process with its output in a log file. `node --import tsx` rather than the tsx CLI: the CLI
// runs the program in a grandchild, so a SIGKILL aimed at "the worker" would kill only the wrapper,
// and the memory sampled from /proc/<pid> would be the wrapper's.
import { ChildProcess, spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { appEnvFor, nodeFlagsFor } from './node-flags';

export const ROOT = path.resolve(__dirname, '../..');

export interface Proc {
  name: string;
  child: ChildProcess;
  logFile: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * `nodeArgs` come after the app's own flags (node-flags.ts), so a benchmark may override one; the
 * app's variables (node-flags.ts) come first, so this process's environment or `env` may too.
 */
export function startProcess(name: string, entry: string, env: Record<string, string>, logDir: string, nodeArgs: string[] = []): Proc {
  const logFile = path.join(logDir, `${name}.log`);
  const out = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, [...nodeFlagsFor(entry), ...nodeArgs, '--import', 'tsx', path.join(ROOT, entry)], {
    cwd: ROOT,
    env: { ...appEnvFor(entry), ...process.env, ...env },
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { name, child, logFile, exited };
}

export const isRunning = (p: Proc): boolean => p.child.exitCode === null && p.child.signalCode === null;

/** SIGTERM, then SIGKILL if the process has not exited after `graceMs`. */
export async function stopProcess(p: Proc, graceMs = 10_000): Promise<void> {
  if (!isRunning(p)) return;
  p.child.kill('SIGTERM');
  const timer = setTimeout(() => p.child.kill('SIGKILL'), graceMs);
  await p.exited;
  clearTimeout(timer);
}

/**
 * A port for a child process to listen on, picked outside the kernel's ephemeral range
 * (32768-60999 on Linux). A port-0 probe would hand back an ephemeral port, and between the probe
 * and the child's bind the kernel may give that same port to another test's port-0 server or to an
 * outgoing connection: the child then dies with EADDRINUSE, or a stack talks to another test's
 * server. Ports below the range are never handed out implicitly, so only another explicit pick can
 * collide before its bind. Parallel test files run in several jest worker processes: two of them
 * drawing from the whole range did hand out the same port once (CI, 2026-12-02: a gateway's port
 * was bound by another file's worker health server, which answered the stack's health check and
 * then 404 to `POST /admin/accounts`). So each jest worker (JEST_WORKER_ID; jest.config.js runs 2)
 * draws from its own slice of the range, and one process never hands out a port twice until half
 * its slice has gone. Slices stay large (a quarter of the range): a child process that picks ports
 * itself inherits its worker's id and slice.
 */
const PORTS_FROM = 20_000;
const PORTS_SPAN = 12_000;
const SLICES = 4;
const handedOut = new Set<number>();

export async function freePort(): Promise<number> {
  const worker = Number(process.env.JEST_WORKER_ID);
  const [from, span] = Number.isInteger(worker) && worker > 0
    ? [PORTS_FROM + ((worker - 1) % SLICES) * (PORTS_SPAN / SLICES), PORTS_SPAN / SLICES]
    : [PORTS_FROM, PORTS_SPAN];
  for (let tries = 0; tries < 200; tries++) {
    if (handedOut.size >= span / 2) handedOut.clear();
    const port = from + randomInt(span);
    if (handedOut.has(port)) continue;
    if (await canListen(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free port found in ${from}-${from + span - 1}`);
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** Resolves once `url` answers 2xx; fails early, with the log's tail, if the process exits. */
export async function waitHealthy(url: string, p: Proc, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (!isRunning(p)) throw new Error(`${p.name} exited early:\n${tail(p.logFile)}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${p.name} not healthy at ${url} after ${timeoutMs} ms:\n${tail(p.logFile)}`);
}

export function tail(file: string, lines = 40): string {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
