// `npm run fuzz` (docs/security.md): hostile inputs against a gateway on loopback running in its
// own process (scripts/lib/gateway-child.ts), with its own Postgres schema and Redis prefix. This
// process is the load generator and the lying reference server: their work does not count in the
// gateway's event-loop figure. Seeded and bounded: `--seed N` replays the same
// cases, `--cases N` (default 400) bounds them. Nothing leaves the machine: the gateway and the
// lying reference server listen on 127.0.0.1, and redirects to private addresses are tried
// against the URL policy with a connector that never dials out.
// Checked for every case: no 5xx; every 4xx/5xx body is JSON {error, code}. Over the run: the event
// loop never held more than 100 ms; charges equal created tasks and the ledger adds up.
// Prints the figures; exits 1 on any violation.
import '@mediagen/runtime/node-version'; // first: one readable line on a Node older than 24.11
import http from 'node:http';
import os from 'node:os';
import { gzipSync, brotliCompressSync, deflateSync } from 'node:zlib';
import { safeFetch, MediaProblem } from '@mediagen/media';
import { prng, percentile } from './lib/hostile-stack';
import { startGatewayProcess } from './lib/gateway-process';
import { startHostileServer, HOSTILE_PATHS } from './lib/hostile-server';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : def;
};
const SEED = arg('seed', 11);
const CASES = Math.min(arg('cases', 400), 5_000);
const LOOP_LIMIT_MS = 100;

interface Outcome {
  kind: string;
  status: number;
  body: string;
  ms: number;
  what: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

function send(base: string, method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<{ status: number; body: string; ms: number }> {
  const url = new URL(base);
  const t = performance.now();
  return new Promise((resolve) => {
    const req = http.request({ host: url.hostname, port: url.port, method, path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      let n = 0;
      res.on('data', (c: Buffer) => {
        if (n < 65536) chunks.push(c);
        n += c.length;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - t }));
      res.on('error', () => resolve({ status: -1, body: '', ms: performance.now() - t }));
    });
    req.on('error', (e) => resolve({ status: -1, body: String(e.message), ms: performance.now() - t }));
    req.setTimeout(30_000, () => req.destroy(new Error('client timeout')));
    if (body) req.end(body);
    else req.end();
  });
}

async function main(): Promise<void> {
  const rnd = prng(SEED);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const int = (n: number) => Math.floor(rnd() * n);
  const stack = await startGatewayProcess('fuzz', { AUTH_FAILURES_PER_MINUTE: '100000', FILES_RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_PER_MINUTE: '100000' });
  const refs = await startHostileServer();
  const rich = await stack.newAccount(1_000_000, { maxConcurrentTasks: 10_000 });
  const poor = await stack.newAccount(0);
  // Heavy client-side payloads are built before the watch starts: their cost is the fuzzer's, not the gateway's.
  const gzipBomb = gzipSync(Buffer.alloc(20 * 1024 * 1024, 0x20));
  const deepBody = Buffer.from('['.repeat(50_000) + ']'.repeat(50_000));
  const manyMedia = Buffer.from(JSON.stringify({ model: 'video-b-2.5', prompt: 'p', media: Array.from({ length: 10_000 }, () => ({ type: 'image', url: 'https://x.test/a.png' })) }));
  const hugePrompt = Buffer.from(JSON.stringify({ model: 'image-b-2.5', prompt: '😀'.repeat(1_000_000) }));
  const longNumber = Buffer.from('{"a":' + '1'.repeat(100_000) + '}');
  await stack.watchStart();
  const started = performance.now();
  const outcomes: Outcome[] = [];
  const spans: { kind: string; what: string; t0: number; t1: number }[] = [];

  const json = (o: unknown) => Buffer.from(JSON.stringify(o));
  const randomString = (n: number) => Array.from({ length: n }, () => String.fromCharCode(int(0x3000))).join('');
  const validImage = () => ({ model: 'image-b-2.5', prompt: `fuzz ${int(1e9)}` });
  const mutate = (o: Record<string, unknown>): Record<string, unknown> => {
    const c: Record<string, unknown> = { ...o };
    const k = pick(['model', 'prompt', 'duration', 'media', 'images', 'ratio', 'resolution', 'client_request_id', 'seed', 'extra', '__proto__', 'constructor']);
    c[k] = pick([null, true, -1, 1e308, 'x'.repeat(int(20000)), [], {}, [[[]]], randomString(50), '\u0000', 'data:image/png;base64,AAAA', NaN]);
    return c;
  };
  const keyAuth = (k: string) => ({ Authorization: `Bearer ${k}` });

  const cases: (() => Promise<Outcome>)[] = [
    // Bodies.
    async () => {
      const body = pick([
        json(mutate(validImage())),
        deepBody,
        Buffer.from('{"prompt":'),
        Buffer.from(Array.from({ length: int(5000) }, () => int(256))),
        manyMedia,
        hugePrompt,
        Buffer.from('{"model":"image-b-2.5","prompt":"a\\u0000b"}'),
        json({ model: 'image-b-2.5', prompt: 'p', images: ['data:image/png;base64,' + 'A'.repeat(int(100_000))] }),
        Buffer.from('"just a string"'),
        longNumber,
      ]);
      const r = await send(stack.base, 'POST', pick(['/api/image/generate', '/api/video/generate']), { ...keyAuth(rich.key), 'Content-Type': 'application/json' }, body);
      return { kind: 'body', ...r, what: body.subarray(0, 60).toString('latin1') };
    },
    // Headers and encodings.
    async () => {
      const payload = json(validImage());
      const variant = int(9);
      const headers: Record<string, string> = { ...keyAuth(rich.key), 'Content-Type': 'application/json' };
      let body: Buffer = payload;
      if (variant === 0) [headers['Content-Encoding'], body] = ['gzip', gzipBomb];
      if (variant === 1) [headers['Content-Encoding'], body] = ['br', Buffer.from('garbage garbage')];
      if (variant === 2) [headers['Content-Encoding'], body] = ['deflate', deflateSync(payload)];
      if (variant === 3) [headers['Content-Encoding'], body] = ['br', brotliCompressSync(payload)];
      if (variant === 4) headers['Content-Type'] = pick(['text/plain', 'application/json; charset=latin1', 'multipart/form-data; boundary=x', '']);
      if (variant === 5) headers['X-Request-Id'] = pick(['x'.repeat(10_000), 'a\tb', 'ok-id']);
      if (variant === 6) headers.Authorization = pick(['Bearer', 'Basic abc', `Bearer ${'k'.repeat(5000)}`, 'Bearer mg_unknown_key_123456789', '']);
      if (variant === 7) headers['Idempotency-Key'] = pick(['', 'k'.repeat(300), 'ünïcødé', `fz-${int(1e6)}`]);
      if (variant === 8) headers['Content-Encoding'] = 'gzip, gzip';
      const r = await send(stack.base, 'POST', '/api/image/generate', headers, body);
      return { kind: 'header', ...r, what: `variant ${variant}` };
    },
    // Paths.
    async () => {
      const seg = pick(['%ZZ', '%00', '%E0%A4%A', '%', '..%2F..%2Fetc%2Fpasswd', 'a'.repeat(3000), '%C0%AE%C0%AE', encodeURIComponent(randomString(5)), '\u00ff', '%2e%2e']);
      const path = pick(['/api/video/tasks/', '/api/image/tasks/', '/files/', '/files/results/', '/docs/', '/admin/tasks/', '/admin/accounts/', '/']) + seg;
      const headers = path.startsWith('/admin') ? { Authorization: 'Bearer hostile-script-admin-token-0123' } : keyAuth(rich.key);
      const r = await send(stack.base, pick(['GET', 'HEAD', 'DELETE', 'PATCH']), path.replace(/[^\x21-\x7e]/g, (c) => encodeURIComponent(c)), headers);
      return { kind: 'path', ...r, what: path.slice(0, 80) };
    },
    // References to the lying server (and a zero-balance key, which must fetch nothing).
    async () => {
      const p = pick(HOSTILE_PATHS);
      const kind = p.endsWith('.mp3') || p.endsWith('.wav') ? 'audio' : p.endsWith('.png') ? 'image' : 'video';
      const body = kind === 'image'
        ? { model: 'image-b-2.5', prompt: 'p', images: [`${refs.base}/${p}`] }
        : kind === 'audio'
        ? { model: 'video-a-h3', prompt: 'p', ref_mode: 'lip-sync', media: [{ type: 'image', url: `${refs.base}/ok.png` }, { type: 'audio', url: `${refs.base}/${p}` }] }
        : { model: 'video-b-2.5', prompt: 'p', duration: 5, media: [{ type: 'video', url: `${refs.base}/${p}` }] };
      const who = rnd() < 0.15 ? poor : rich;
      const r = await send(stack.base, 'POST', kind === 'image' ? '/api/image/generate' : '/api/video/generate', { ...keyAuth(who.key), 'Content-Type': 'application/json' }, json(body));
      return { kind: 'reference', ...r, what: p };
    },
    // Valid submits now and then: tasks are created and charged.
    async () => {
      const r = await send(stack.base, 'POST', '/api/image/generate', { ...keyAuth(rich.key), 'Content-Type': 'application/json' }, json(validImage()));
      return { kind: 'valid', ...r, what: 'image' };
    },
  ];

  // A bounded number in flight at once, like several hostile clients.
  let next = 0;
  const runner = async () => {
    while (next < CASES) {
      next++;
      const t0 = performance.now();
      const o = await pick(cases)();
      outcomes.push(o);
      spans.push({ kind: o.kind, what: o.what, t0, t1: performance.now() });
    }
  };
  await Promise.all(Array.from({ length: 8 }, runner));

  // Redirects to private addresses, against the policy the gateway uses in production, with a
  // connector that answers every hop locally (never dials): each private target must be refused.
  const privateTargets = ['http://127.0.0.1/', 'http://10.0.0.1/', 'http://169.254.169.254/latest/meta-data/', 'http://[::1]/', 'http://[::a00:1]/', 'http://[fec0::1]/', 'http://[64:ff9b:1::a00:1]/', 'http://0x7f.1/', 'http://2130706433/'];
  let privateRefused = 0;
  for (const target of privateTargets) {
    const hop = async () => Object.assign(new http.IncomingMessage(null as never), { statusCode: 302, headers: { location: target } });
    try {
      await safeFetch('https://public.example/a.mp4', { allowPrivate: false, maxRedirects: 3, resolve: async () => [{ address: '93.184.216.34', family: 4 }] }, { signal: new AbortController().signal }, hop as never);
    } catch (e) {
      if (e instanceof MediaProblem && /non-public|https/.test(e.message)) privateRefused++;
    }
  }

  const watch = await stack.watchStop();
  const elapsed = (performance.now() - started) / 1000;
  const violations: string[] = [];
  for (const o of outcomes) {
    if (o.status >= 500 || o.status < 0) violations.push(`${o.kind} ${o.what}: status ${o.status} ${o.body.slice(0, 120)}`);
    if (o.status >= 400 && o.body) {
      try {
        const b = JSON.parse(o.body) as { error?: unknown; code?: unknown };
        if (typeof b.error !== 'string' || typeof b.code !== 'string') violations.push(`${o.kind} ${o.what}: error body without {error, code}`);
      } catch {
        violations.push(`${o.kind} ${o.what}: ${o.status} body is not JSON`);
      }
    }
  }
  if (watch.heldMax > LOOP_LIMIT_MS) {
    const at = watch.heldMaxAtEpochMs - performance.timeOrigin; // on this process's clock
    const during = spans.filter((x) => x.t0 <= at && x.t1 >= at - watch.heldMax).map((x) => `${x.kind}:${x.what.slice(0, 40)}`);
    violations.push(`gateway event loop held ${watch.heldMax.toFixed(0)} ms (limit ${LOOP_LIMIT_MS}); in flight: ${during.join(' | ')}`);
  }
  if (privateRefused !== privateTargets.length) violations.push(`only ${privateRefused}/${privateTargets.length} private redirect targets refused`);
  const { tasks, charges, discrepancies, balances } = await stack.ledger([poor.id]);
  if (tasks !== charges) violations.push(`${tasks} tasks but ${charges} charges`);
  if (discrepancies) violations.push(`${discrepancies} ledger discrepancies`);
  const poorBalance = balances[poor.id];
  if (poorBalance !== 0) violations.push(`the zero-balance account was charged: ${poorBalance}`);

  const byStatus: Record<string, number> = {};
  const byKind: Record<string, number> = {};
  for (const o of outcomes) {
    byStatus[o.status] = (byStatus[o.status] ?? 0) + 1;
    byKind[o.kind] = (byKind[o.kind] ?? 0) + 1;
  }
  const ms = outcomes.map((o) => o.ms);
  console.log(JSON.stringify({
    seed: SEED,
    cases: outcomes.length,
    seconds: Number(elapsed.toFixed(1)),
    byKind,
    byStatus,
    latencyMs: { p50: Math.round(percentile(ms, 0.5)), p99: Math.round(percentile(ms, 0.99)), max: Math.round(Math.max(...ms)) },
    gatewayEventLoopHeldMs: { p99: Number(watch.heldP99.toFixed(1)), max: Number(watch.heldMax.toFixed(1)), wallLatenessMax: Number(watch.wallLatenessMax.toFixed(1)), loadAverage: os.loadavg()[0] },
    gatewayMemoryMB: { heapPeak: watch.heapPeakMB, heapP50: watch.heapP50MB, rssPeak: watch.rssPeakMB },
    tasksCreated: tasks,
    charges,
    privateRedirectsRefused: `${privateRefused}/${privateTargets.length}`,
    violations: violations.length,
  }, null, 2));
  for (const v of violations.slice(0, 30)) console.error(`VIOLATION ${v}`);
  agent.destroy();
  await refs.close();
  await stack.close();
  process.exit(violations.length ? 1 : 0);
}

main().catch((e) => {
  console.error(e);
  process.exit(2);
});
