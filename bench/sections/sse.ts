// Task event streams (GET /api/tasks/{id}/events): SSE_STREAMS streams held open on one gateway
// (the gateway's RSS idle and with them open, and how long opening them took), then, with those
// streams still open, the time from a task's settlement (its finishedAt) to its terminal event at
// an SSE client, against a polling client's best case: a client polling the same task every 20 ms,
// whose first terminal answer comes one poll round trip after the settlement at best.
import http from 'node:http';
import type { BenchContext } from '../lib/context';
import { rssBytes, sleep } from '../lib/procs';
import { figure } from '../lib/report';
import { MiB } from '../lib/settings';
import { percentile } from '../lib/stats';
import { auth, jsonAuth } from '../lib/tasks';
import type { BenchAccount } from '../lib/admin';
import type { Section } from './section';

const SSE_STREAMS = Number(process.env.BENCH_SSE_STREAMS ?? 5_000);
/** Streams per account: within SSE_MAX_STREAMS_PER_ACCOUNT (100) and the request rate per key. */
const PER_ACCOUNT = 100;
const SAMPLES = Number(process.env.BENCH_SSE_SAMPLES ?? 30);
const POLL_EVERY_MS = 20;

const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });

/** Opens a stream; resolves once its first event arrived, with a way to close it and its done time. */
function openStream(base: string, account: BenchAccount, taskId: string): Promise<{ close: () => void; done: Promise<number> }> {
  return new Promise((resolve, reject) => {
    let settle!: (at: number) => void;
    const done = new Promise<number>((r) => (settle = r));
    const req = http.get(`${base}/api/tasks/${taskId}/events`, { agent, headers: { ...auth(account), Accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
      let first = true;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (chunk.includes('event: done')) settle(Date.now());
        if (first && chunk.includes('event: ')) {
          first = false;
          resolve({ close: () => req.destroy(), done });
        }
      });
    });
    req.on('error', reject);
  });
}

async function submit(base: string, account: BenchAccount, body: object): Promise<string> {
  const res = await fetch(`${base}/api/video/generate`, { method: 'POST', headers: jsonAuth(account), body: JSON.stringify(body) });
  if (res.status !== 200) throw new Error(`submit: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { taskId: string }).taskId;
}

async function run(ctx: BenchContext): Promise<void> {
  const { stack: s, log, add } = ctx;
  await ctx.ensureWorker();
  const accounts = await ctx.accounts('sse', Math.ceil(SSE_STREAMS / PER_ACCOUNT));
  // One long render per account: its streams stay open for the whole section.
  const held = await Promise.all(accounts.map((a) => submit(s.base, a, { model: 'video-a-h3', prompt: 'benchmark #sim:hang', duration: 2, resolution: '480p' })));
  await sleep(1000);
  const idle = rssBytes(ctx.gatewayPid) ?? 0;
  log(`sse: opening ${SSE_STREAMS} streams (${PER_ACCOUNT} per account) on one gateway`);
  const started = Date.now();
  const streams: { close: () => void }[] = [];
  for (let i = 0; i < SSE_STREAMS; i += 250) {
    const batch = Array.from({ length: Math.min(250, SSE_STREAMS - i) }, (_, j) => {
      const k = Math.floor((i + j) / PER_ACCOUNT);
      return openStream(s.base, accounts[k], held[k]);
    });
    streams.push(...(await Promise.all(batch)));
  }
  const openSeconds = (Date.now() - started) / 1000;
  await sleep(3000); // a few refreshes of every followed task
  const withStreams = rssBytes(ctx.gatewayPid) ?? 0;
  log(`  ${streams.length} open in ${openSeconds.toFixed(1)} s; gateway RSS idle ${(idle / MiB).toFixed(0)} MiB, with the streams ${(withStreams / MiB).toFixed(0)} MiB`);

  // Settlement -> terminal event, with the streams open: each sample task is followed by a stream
  // and by a client polling every 20 ms; both are measured from the task's finishedAt.
  const [probe] = await ctx.accounts('sse-probe', 1);
  const sseMs: number[] = [];
  const pollMs: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const taskId = await submit(s.base, probe, { model: 'video-a-h3', prompt: `benchmark #sim:delay=${700 + (i % 5) * 97}`, duration: 2, resolution: '480p' });
    const stream = await openStream(s.base, probe, taskId);
    const polled = (async () => {
      for (;;) {
        const res = await fetch(`${s.base}/api/video/tasks/${taskId}`, { headers: auth(probe) });
        const body = (await res.json()) as { status: string };
        if (body.status === 'completed' || body.status === 'failed') return Date.now();
        await sleep(POLL_EVERY_MS);
      }
    })();
    const [sseAt, pollAt] = await Promise.all([stream.done, polled]);
    stream.close();
    const row = await ctx.db.task.findUnique({ where: { id: taskId }, select: { finishedAt: true } });
    const finished = row?.finishedAt?.getTime() ?? NaN;
    sseMs.push(sseAt - finished);
    pollMs.push(pollAt - finished);
  }
  for (const st of streams) st.close();
  sseMs.sort((a, b) => a - b);
  pollMs.sort((a, b) => a - b);
  log(`  settlement -> terminal event p50 ${percentile(sseMs, 50).toFixed(0)} ms (p99 ${percentile(sseMs, 99).toFixed(0)}), polling every ${POLL_EVERY_MS} ms p50 ${percentile(pollMs, 50).toFixed(0)} ms`);
  add(figure('SSE streams held open on one gateway', streams.length, 'streams', { target: SSE_STREAMS, better: 'higher' }));
  add(figure(`gateway RSS with ${streams.length} open streams`, withStreams / MiB, 'MiB', { floor: idle / MiB, better: 'lower' }));
  add(figure(`time to open ${streams.length} streams`, openSeconds, 's', { better: 'lower' }));
  add(figure('settlement to terminal SSE event p50 (streams open)', percentile(sseMs, 50), 'ms', { target: percentile(pollMs, 50) + 50, better: 'lower' }));
  add(figure('settlement to terminal SSE event p99 (streams open)', percentile(sseMs, 99), 'ms', { better: 'lower' }));
  add(figure(`settlement to terminal poll p50 (polling every ${POLL_EVERY_MS} ms: the best case)`, percentile(pollMs, 50), 'ms', { better: 'lower' }));
}

export const sseSection: Section = { name: 'sse', run };
