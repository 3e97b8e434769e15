// `npm run hostile-load` (docs/security.md: large and hostile JSON bodies must not stall the gateway): 50 concurrent hostile bodies
// against a gateway on loopback running in its own process (scripts/lib/gateway-child.ts), while
// this process (the load generator) polls /healthz every 20 ms. Prints, per scenario: answers by
// status, the gateway's heap and RSS peaks and its event-loop hold (see loopWatch), and /healthz
// latency. Exits 1 if any answer is a 5xx other than the large-body gate's 503, or if the
// gateway's loop was held over 100 ms.
import '@mediagen/runtime/node-version'; // first: one readable line on a Node older than 24.11
import http from 'node:http';
import os from 'node:os';
import { gzipSync } from 'node:zlib';
import { percentile } from './lib/hostile-stack';
import { startGatewayProcess, type GatewayProcess } from './lib/gateway-process';

const CONCURRENCY = 50;
// A fresh pool per scenario: a keep-alive socket left idle between scenarios may be closed by the
// server just as it is reused, a client-side race (ECONNRESET) that says nothing about the gateway.
let agent = new http.Agent({ keepAlive: true, maxSockets: 200 });
/** Why requests got no answer, by error code (printed: a reset reused keep-alive socket is the client's race, not a 5xx). */
const dropped: Record<string, number> = {};

function post(base: string, path: string, headers: Record<string, string>, body: Buffer, dripMs = 0): Promise<number> {
  const url = new URL(base);
  return new Promise((resolve) => {
    let status = -1;
    const req = http.request({ host: url.hostname, port: url.port, method: 'POST', path, headers: { ...headers, 'Content-Length': String(body.length) }, agent }, (res) => {
      status = res.statusCode ?? 0;
      res.resume();
      res.on('end', () => resolve(status));
    });
    // An answer that came before the rest of the body was sent (the gate's 503) still counts:
    // the server then closes the connection under the client's writes, as HTTP allows.
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (status < 0) dropped[e.code ?? e.message] = (dropped[e.code ?? e.message] ?? 0) + 1;
      resolve(status);
    });
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

async function scenario(name: string, gw: GatewayProcess, run: () => Promise<number[]>) {
  const base = gw.base;
  agent.destroy();
  agent = new http.Agent({ keepAlive: true, maxSockets: 200 });
  await gw.watchStart();
  const health: number[] = [];
  let done = false;
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
  const w = await gw.watchStop();
  const byStatus: Record<string, number> = {};
  for (const s of statuses) byStatus[s] = (byStatus[s] ?? 0) + 1;
  const out = {
    scenario: name,
    seconds: Number(((performance.now() - t0) / 1000).toFixed(1)),
    byStatus,
    gatewayHeapPeakMB: w.heapPeakMB,
    gatewayRssPeakMB: w.rssPeakMB,
    gatewayLoopHeldMs: { p99: Number(w.heldP99.toFixed(1)), max: Number(w.heldMax.toFixed(1)), wallLatenessMax: Number(w.wallLatenessMax.toFixed(1)) },
    healthzMs: { n: health.length, p50: Math.round(percentile(health, 0.5)), p99: Math.round(percentile(health, 0.99)), max: Math.round(Math.max(...health)) },
  };
  console.log(JSON.stringify(out));
  return { out, statuses, held: w.heldMax };
}

async function main() {
  const stack = await startGatewayProcess('hostileload', { RATE_LIMIT_PER_MINUTE: '100000', AUTH_FAILURES_PER_MINUTE: '100000' });
  const acc = await stack.newAccount(1_000_000);
  const h = { Authorization: `Bearer ${acc.key}`, 'Content-Type': 'application/json' };
  const big = (mb: number) => Buffer.from(JSON.stringify({ model: 'image-b-2.5', prompt: 'p', images: [`data:image/png;base64,${'A'.repeat(mb * 1024 * 1024)}`] }));
  const body30 = big(30);
  const body8 = big(8);
  const bomb = gzipSync(Buffer.from(JSON.stringify({ model: 'image-b-2.5', prompt: ' '.repeat(39 * 1024 * 1024) })));
  const emoji = Buffer.from(JSON.stringify({ model: 'image-b-2.5', prompt: '😀'.repeat(2_500_000) }));
  const results = [];
  const all = (n: number, f: (i: number) => Promise<number>) => Promise.all(Array.from({ length: n }, (_, i) => f(i)));

  results.push(await scenario('50 concurrent 30 MB bodies (inline file too large)', stack, () => all(CONCURRENCY, () => post(stack.base, '/api/image/generate', h, body30))));
  results.push(await scenario(`50 concurrent gzip bombs (${Math.round(bomb.length / 1024)} KB -> 39 MB)`, stack, () => all(CONCURRENCY, () => post(stack.base, '/api/image/generate', { ...h, 'Content-Encoding': 'gzip' }, bomb))));
  results.push(await scenario('50 concurrent 10 MB all-emoji prompts (non-ASCII decode)', stack, () => all(CONCURRENCY, () => post(stack.base, '/api/image/generate', h, emoji))));
  results.push(await scenario('50 slow 8 MB bodies (64 KiB every 20 ms)', stack, () => all(CONCURRENCY, () => post(stack.base, '/api/image/generate', h, body8, 20))));
  results.push(await scenario('one key, 8 MB bodies at ~8/s for 10 s', stack, async () => {
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
    if (r.held > 100) violations.push(`${r.out.scenario}: gateway loop held ${r.held.toFixed(0)} ms`);
  }
  console.log(JSON.stringify({ loadAverage: os.loadavg()[0], dropped, violations }));
  agent.destroy();
  await stack.close();
  process.exit(violations.length ? 1 : 0);
}

main().catch((e) => {
  console.error(e);
  process.exit(2);
});
