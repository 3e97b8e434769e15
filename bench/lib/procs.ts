// Child processes of the benchmark: the apps under test and the floor programs, each its own Node
// process (scripts/lib/processes.ts, shared with the end-to-end tests), and what we sample of them.
import fs from 'node:fs';
import { startProcess, tail } from '../../scripts/lib/processes';

export type { Proc } from '../../scripts/lib/processes';
export { ROOT, startProcess, stopProcess, isRunning, freePort, waitHealthy, tail } from '../../scripts/lib/processes';

/** Runs a floor program to its end and returns the JSON object it prints last on stdout. */
export async function runToJson<T>(name: string, entry: string, env: Record<string, string>, logDir: string): Promise<T> {
  const p = startProcess(name, entry, env, logDir);
  const { code, signal } = await p.exited;
  const lines = fs.readFileSync(p.logFile, 'utf8').trim().split('\n');
  const last = [...lines].reverse().find((l) => l.startsWith('{"result"'));
  if (code !== 0 || !last) throw new Error(`${name} failed (${signal ?? code}):\n${tail(p.logFile)}`);
  return (JSON.parse(last) as { result: T }).result;
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
