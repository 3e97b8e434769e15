// Event-loop hold, shared by the hostile-input tests and scripts/fuzz.ts, scripts/hostile-load.ts.
import fs from 'node:fs';

/**
 * CPU time the main thread has run, in ms: Linux's per-thread scheduler statistics (the main
 * thread's id is the process id), in nanoseconds. null where /proc does not offer them.
 */
function mainThreadCpuReader(): (() => number) | null {
  try {
    const fd = fs.openSync(`/proc/self/task/${process.pid}/schedstat`, 'r');
    const buf = Buffer.alloc(128);
    const read = () => {
      const n = fs.readSync(fd, buf, 0, buf.length, 0);
      return Number(buf.toString('latin1', 0, n).split(' ')[0]) / 1e6;
    };
    return Number.isFinite(read()) ? read : null;
  } catch {
    return null;
  }
}

/**
 * How long the event loop was held, sampled by a 5 ms timer (its lateness). On a shared machine
 * (our CI boxes: 2 cores, load average ~15-20) a timer is also late while the OS runs other
 * processes, which is not this process holding its loop. `held` counts the lateness only up to
 * the time the main thread actually ran on a CPU in that gap: its own scheduler statistics on
 * Linux (/proc/self/task/<pid>/schedstat); elsewhere the smaller of the process's CPU time (all
 * its threads) and the loop's active time (performance.eventLoopUtilization), both upper bounds
 * of it. So `held` is the main thread's own work between two timer turns, never less. `wall` is
 * the raw lateness, printed alongside.
 */
export function loopWatch(): { max(): number; maxAt(): number; p99(): number; wallMax(): number; stop(): void } {
  const held: number[] = [];
  const threadCpu = mainThreadCpuReader();
  let last = performance.now();
  let lastThread = threadCpu?.() ?? 0;
  let lastCpu = process.cpuUsage();
  let lastElu = performance.eventLoopUtilization();
  let worst = 0;
  let worstAt = 0;
  let wallWorst = 0;
  const t = setInterval(() => {
    const now = performance.now();
    const lag = Math.max(0, now - last - 5);
    let ran: number;
    if (threadCpu) {
      const c = threadCpu();
      ran = c - lastThread;
      lastThread = c;
    } else {
      const cpu = process.cpuUsage(lastCpu);
      ran = Math.min((cpu.user + cpu.system) / 1000, performance.eventLoopUtilization(lastElu).active);
      lastCpu = process.cpuUsage();
      lastElu = performance.eventLoopUtilization();
    }
    const h = Math.min(lag, ran);
    held.push(h);
    if (h > worst) [worst, worstAt] = [h, now];
    wallWorst = Math.max(wallWorst, lag);
    last = now;
  }, 5);
  return {
    max: () => worst,
    maxAt: () => worstAt,
    wallMax: () => wallWorst,
    p99: () => {
      const s = [...held].sort((a, b) => a - b);
      return s[Math.floor(s.length * 0.99)] ?? 0;
    },
    stop: () => clearInterval(t),
  };
}
