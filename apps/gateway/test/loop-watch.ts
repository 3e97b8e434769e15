// Event-loop hold, shared by the hostile-input tests and scripts/fuzz.ts, scripts/hostile-load.ts.

/**
 * How long the event loop was held, sampled by a 5 ms timer (its lateness). On a shared machine
 * (our CI boxes: 2 cores, load average ~15) a timer is also late while the OS runs other
 * processes, which is not this process holding its loop: `held` counts the lateness only up to the
 * CPU time this process used in that gap (process.cpuUsage, all its threads: an upper bound of the
 * main thread's share). `wall` is the raw lateness, printed alongside.
 */
export function loopWatch(): { max(): number; maxAt(): number; p99(): number; wallMax(): number; stop(): void } {
  const held: number[] = [];
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  let worst = 0;
  let worstAt = 0;
  let wallWorst = 0;
  const t = setInterval(() => {
    const now = performance.now();
    const cpu = process.cpuUsage(lastCpu);
    const lag = Math.max(0, now - last - 5);
    const h = Math.min(lag, (cpu.user + cpu.system) / 1000);
    held.push(h);
    if (h > worst) [worst, worstAt] = [h, now];
    wallWorst = Math.max(wallWorst, lag);
    last = now;
    lastCpu = process.cpuUsage();
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
