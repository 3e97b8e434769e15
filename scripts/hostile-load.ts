// `npm run hostile-load` (docs/security.md, issue 11.2 and 11.9): 50 concurrent hostile bodies
// against an in-process gateway on loopback, while a separate client polls /healthz every 20 ms.
// Prints, per scenario: answers by status, heap and RSS peaks, event-loop hold (see loopWatch) and
// /healthz latency. Exits 1 if any answer is a 5xx other than the large-body gate's 503, or if the
// loop was held over 100 ms.
import http from 'node:http';
import os from 'node:os';
import { gzipSync } from 'node:zlib';
import { startHostileStack, loopWatch, percentile } from './lib/hostile-stack';

const CONCURRENCY = 50;
const agent = new http.Agent({ keepAlive: true, maxSockets: 200 });

function post(base: string, path: string, headers: Record<string, string>, body: Buffer, dripMs = 0): Promise<number> {
  const url = new URL(base);
  return new Promise((resolve) => {
    const req = http.request({ host: url.hostname, port: url.port, method: 'POST', path, headers: { ...headers, 'Content-Length': String(body.length) }, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(-1));
    if (!dripMs) return void req.end(body);
    // A slow client: 64 KiB every dripMs.
    let off = 0;
    const t = setInterval(() => {
      if (off >= body.length || req.destroyed) {
        clearInterval(t);
        return void req.end();
      }
      req.write(body.subarray(off, (off += 65536)));
    }, dripMs);
  });
}

async function scenario(name: string, base: string, run: () => Promise<number[]>) {
  global.gc?.();
  const watch = loopWatch();
  const heap: number[] = [];
  const rss: number[] = [];
  const health: number[] = [];
  let done = false;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    heap.push(m.heapUsed);
    rss.push(m.rss);
  }, 20);
  const prober = (async () => {
    while (!done) {
      const t = performance.now();
      await new Promise<void>((r) => http.get(`${base}/healthz`, { agent: false }, (res) => res.resume().on('end', r)).on('error', () => r()));
      health.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const t0 = performance.now();
  const statuses = await run();
  done = true;
  await prober;
  clearInterval(sampler);
  watch.stop();
  const byStatus: Record<string, number> = {};
  for (const s of statuses) byStatus[s] = (byStatus[s] ?? 0) + 1;
  const mb = (xs: number[]) => Math.round(Math.max(...xs) / 2 ** 20);
  const out = {
    scenario: name,
    seconds: Number(((performance.now() - t0) / 1000).toFixed(1)),
    byStatus,
    heapPeakMB: mb(heap),
    rssPeakMB: mb(rss),
    loopHeldMs: { p99: Number(watch.p99().toFixed(1)), max: Number(watch.max().toFixed(1)), wallLatenessMax: Number(watch.wallMax().toFixed(1)) },
    healthzMs: { n: health.length, p50: Math.round(percentile(health, 0.5)), p99: Math.round(percentile(health, 0.99)), max: Math.round(Math.max(...health)) },
  };
  console.log(JSON.stringify(out));
  return { out, statuses, held: watch.max() };
}

async function main() {
  const stack = await startHostileStack('hostileload', { RATE_LIMIT_PER_MINUTE: '100000', AUTH_FAILURES_PER_MINUTE: '100000' });
  const acc = await stack.newAccount(1_000_000);
  const h = { Authorization: `Bearer ${acc.key}`, 'Content-Type': 'application/json' };
  const big = (mb: number) => Buffer.from(JSON.stringify({ model: 'image-b-2.5', prompt: 'p', images: [`data:image/png;base64,${'A'.repeat(mb * 1024 * 1024)}`] }));
  const body30 = big(30);
  const body8 = big(8);
  const bomb = gzipSync(Buffer.from(JSON.stringify({ model: 'image-b-2.5', prompt: ' '.repeat(39 * 1024 * 1024) })));
  const emoji = Buffer.from(JSON.stringify({ model: 'image-b-2.5', prompt: '😀'.repeat(2_500_000) }));
  const results = [];
  const all = (n: number, f: (i: number) => Promise<number>) => Promise.all(Array.from({ length: n }, (_, i) => f(i)));

  results.push(await scenario('50 concurrent 30 MB bodies (inline file too large)', stack.base, () => all(CONCURRENCY, () => post(stack.base, '/api/image/generate', h, body30))));
  results.push(await scenario(`50 concurrent gzip bombs (${Math.round(bomb.length / 1024)} KB -> 39 MB)`, stack.base, () => all(CONCURRENCY, () => post(stack.base, '/api/image/generate', { ...h, 'Content-Encoding': 'gzip' }, bomb))));
  results.push(await scenario('50 concurrent 10 MB all-emoji prompts (non-ASCII decode)', stack.base, () => all(CONCURRENCY, () => post(stack.base, '/api/image/generate', h, emoji))));
  results.push(await scenario('50 slow 8 MB bodies (64 KiB every 20 ms)', stack.base, () => all(CONCURRENCY, () => post(stack.base, '/api/image/generate', h, body8, 20))));
  results.push(await scenario('one key, 8 MB bodies at ~8/s for 10 s (issue 11.9)', stack.base, async () => {
    const out: Promise<number>[] = [];
    for (let i = 0; i < 80; i++) {
      out.push(post(stack.base, '/api/image/generate', h, body8));
      await new Promise((r) => setTimeout(r, 125));
    }
    return Promise.all(out);
  }));

  const violations: string[] = [];
  for (const r of results) {
    if (r.statuses.some((s) => s < 0 || (s >= 500 && s !== 503))) violations.push(`${r.out.scenario}: 5xx or dropped`);
    if (r.held > 100) violations.push(`${r.out.scenario}: loop held ${r.held.toFixed(0)} ms`);
  }
  console.log(JSON.stringify({ loadAverage: os.loadavg()[0], violations }));
  agent.destroy();
  await stack.close();
  process.exit(violations.length ? 1 : 0);
}

main().catch((e) => {
  console.error(e);
  process.exit(2);
});
