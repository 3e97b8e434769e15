// Child processes of the benchmark: the apps under test and the floor programs, each its own Node
// process. `node --import tsx` rather than the tsx CLI: the CLI runs the program in a grandchild,
// and the resident memory we sample must be the program's own, not a wrapper's.
import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..');

export interface Proc {
  name: string;
  child: ChildProcess;
  logFile: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function startProcess(name: string, entry: string, env: Record<string, string>, logDir: string, nodeArgs: string[] = []): Proc {
  const logFile = path.join(logDir, `${name}.log`);
  const out = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', path.join(ROOT, entry)], {
    cwd: ROOT,
    env: { ...process.env, ...env },
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
export async function stopProcess(p: Proc, graceMs = 12_000): Promise<void> {
  if (!isRunning(p)) return;
  p.child.kill('SIGTERM');
  const timer = setTimeout(() => p.child.kill('SIGKILL'), graceMs);
  await p.exited;
  clearTimeout(timer);
}

/** Runs a floor program to its end and returns the JSON object it prints last on stdout. */
export async function runToJson<T>(name: string, entry: string, env: Record<string, string>, logDir: string): Promise<T> {
  const p = startProcess(name, entry, env, logDir);
  const { code, signal } = await p.exited;
  const lines = fs.readFileSync(p.logFile, 'utf8').trim().split('\n');
  const last = [...lines].reverse().find((l) => l.startsWith('{"result"'));
  if (code !== 0 || !last) throw new Error(`${name} failed (${signal ?? code}):\n${tail(p.logFile)}`);
  return (JSON.parse(last) as { result: T }).result;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export async function waitHealthy(url: string, p: Proc, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (!isRunning(p)) throw new Error(`${p.name} exited early:\n${tail(p.logFile)}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${p.name} not healthy at ${url} after ${timeoutMs} ms:\n${tail(p.logFile)}`);
}

export function tail(file: string, lines = 30): string {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Resident set size of a process in bytes (VmRSS), or null once it has gone. */
export function rssBytes(pid: number): number | null {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Samples a process's RSS every `everyMs` until stopped; keeps the peak and the mean. */
export class RssSampler {
  private timer: NodeJS.Timeout;
  peak = 0;
  private sum = 0;
  private n = 0;

  constructor(private readonly pid: number, everyMs = 50) {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  private sample(): void {
    const v = rssBytes(this.pid);
    if (v === null) return;
    this.peak = Math.max(this.peak, v);
    this.sum += v;
    this.n += 1;
  }

  stop(): { peak: number; mean: number } {
    clearInterval(this.timer);
    this.sample();
    return { peak: this.peak, mean: this.n ? this.sum / this.n : 0 };
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** CPU time (user + system) a process has used so far, in milliseconds; null once it has gone. */
export function cpuMs(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return null;
  }
}
const CLOCK_TICKS = 100; // sysconf(_SC_CLK_TCK) on Linux
