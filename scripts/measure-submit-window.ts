// Measures the double-render window on channels without idempotent submits (docs/providers.md):
// 1. the write that closes it: from the submit's answer to the upstream id being durable
//    (recordUpstreamId, a compare-and-set UPDATE) on the local Postgres: the floor; beside it, in
//    the same run, the plain UPDATE it replaced (what the compare-and-set costs);
// 2. what narrowing it costs where the protocol allows: one orphan search (findOrphan) of the real
//    ModelArk and Replicate adapters against the simulator with `LISTED` renders of the channel in
//    its list (a resumed attempt runs it once, before submitting again). Reported as a ratio to (1).
// Run: npx tsx scripts/measure-submit-window.ts (local Postgres).
import '@mediagen/runtime/node-version'; // first: one readable line on a Node older than 24.11
import type { AddressInfo } from 'node:net';
import type { VideoTaskSpec } from '@mediagen/catalog';
import { createDb, newId, recordUpstreamId, startAttempt, createTaskWithCharge, creditAccount } from '@mediagen/db';
import { createTestSchema } from '@mediagen/db/testing';
import { createSimServer } from '@mediagen/provider-sim';
import { ChannelAdapter, createAdapters, parseChannelConfig, RenderRequest } from '@mediagen/providers';

const N = 300;
const LISTED = Number(process.env.LISTED ?? 100);

const quantiles = (times: number[]) => {
  times.sort((x, y) => x - y);
  const q = (p: number) => times[Math.floor(p * (times.length - 1))];
  return { n: times.length, p50: q(0.5), p99: q(0.99), max: times[times.length - 1] };
};
const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

async function writeWindow(): Promise<{ cas: number[]; plain: number[] }> {
  const schema = await createTestSchema('window');
  const db = createDb(schema.url, { poolSize: 4 });
  const accountId = newId('acc');
  await db.account.create({ data: { id: accountId, name: 'w', maxConcurrentTasks: 100000 } });
  await creditAccount(db, accountId, 10_000_000, 'w');
  const cas: number[] = [];
  const plain: number[] = [];
  for (let i = 0; i < N; i++) {
    // Interleaved, so both see the same machine.
    for (const kind of ['cas', 'plain'] as const) {
      const taskId = newId();
      await createTaskWithCharge(db, { taskId, accountId, type: 'video', model: 'video-a-h3', params: {}, costCents: 1, costMicros: 10_000n, billedSeconds: 1, deadlineAt: new Date(Date.now() + 60000) });
      const a = await startAttempt(db, newId('att'), taskId, 1, 'c');
      const t0 = process.hrtime.bigint();
      if (kind === 'cas') await recordUpstreamId(db, a, `u-${i}`);
      else await db.$executeRaw`UPDATE "TaskAttempt" SET "upstreamId" = ${`p-${i}`}, "status" = 'running' WHERE "id" = ${a.id}`;
      (kind === 'cas' ? cas : plain).push(ms(t0));
    }
  }
  await db.$disconnect();
  await schema.drop();
  return { cas, plain };
}

async function searchCost(): Promise<Record<string, number[]>> {
  const cfg = (base: string) => parseChannelConfig({
    channels: [
      { id: 'ark', protocol: 'modelark', baseUrl: `${base}/modelark/api/v3`, apiKey: 'ark', tier: 'third-party', costOrder: 1, models: { 'video-b-2.0': 'dreamina-seedance-2-0-260128' } },
      { id: 'rep', protocol: 'replicate', baseUrl: `${base}/replicate/v1`, apiKey: 'rep', tier: 'third-party', costOrder: 1, models: { 'video-b-2.0': 'bytedance/seedance-2.0' } },
    ],
  });
  const sim = createSimServer({ channels: cfg('http://127.0.0.1:1'), renderMs: 60_000, latencyMs: 0 });
  await new Promise<void>((r) => sim.server.listen(0, '127.0.0.1', r));
  const adapters = createAdapters(cfg(`http://127.0.0.1:${(sim.server.address() as AddressInfo).port}`));
  const spec = (i: number): VideoTaskSpec => ({
    type: 'video', model: 'video-b-2.0', prompt: `a lake at dawn ${i}`, duration: 5, ratio: '16:9', resolution: '720p', tier: 'third-party', variant: null,
    refMode: null, effort: null, seed: null, optimizePrompt: null, media: [], firstFrame: null, lastFrame: null,
  });
  const req = (i: number): RenderRequest => ({ taskId: `t${i}`, attemptId: `a${i}`, spec: spec(i), outputSeconds: 5, references: [] });
  const out: Record<string, number[]> = {};
  const sent = new Date(Date.now() - 1000);
  for (const [id, a] of adapters as Map<string, ChannelAdapter>) {
    for (let i = 0; i < LISTED; i++) await a.submit(req(i));
    const times: number[] = [];
    for (let i = 0; i < 50; i++) {
      // The oldest listed render: the search reads the whole window.
      const t0 = process.hrtime.bigint();
      const found = await a.findOrphan!({ ...req(0), submitSentAt: sent });
      times.push(ms(t0));
      if (!found) throw new Error(`${id}: the orphan was not found`);
    }
    out[id] = times;
    a.close();
  }
  sim.server.closeAllConnections();
  await new Promise((r) => sim.server.close(r));
  return out;
}

(async () => {
  const writes = await writeWindow();
  const write = quantiles(writes.cas);
  const plain = quantiles(writes.plain);
  const searches = await searchCost();
  const fmt = (x: number) => x.toFixed(2);
  console.log(JSON.stringify({ write: { n: write.n, p50ms: fmt(write.p50), p99ms: fmt(write.p99), maxMs: fmt(write.max) } }));
  console.log(JSON.stringify({ plainUpdate: { n: plain.n, p50ms: fmt(plain.p50), p99ms: fmt(plain.p99) }, casVsPlainP50: (write.p50 / plain.p50).toFixed(2) }));
  for (const [id, times] of Object.entries(searches)) {
    const s = quantiles(times);
    console.log(JSON.stringify({ search: id, listed: LISTED, n: s.n, p50ms: fmt(s.p50), p99ms: fmt(s.p99), p50VsWriteP50: (s.p50 / write.p50).toFixed(1) }));
  }
})();
