// Section `data-scale` (docs/data-retention.md, docs/benchmark.md): the data-layer cost of the
// client paths with a year of traffic in Postgres against the same on an empty database, in one
// run. Two schemas of the benchmark database get every migration; one is filled with
// BENCH_DATA_SCALE_TASKS tasks (default 10,000,000; ledger rows and attempts, 1,000 accounts, 12
// months, bench/lib/scale-data.ts), and each of the statements below is timed on both, alternating:
// the poll read of a recent task (findTaskViews), a submit's transaction (createTaskWithCharge),
// the listing's first page for the busy account and the console tasks page (listTasks), and the
// account holder's usage page query (usageByDayAndModel: per day and model over 30 days). Target: each p99 at most
// 1.25x its empty figure. HTTP, Redis and the poll cache are the same on both and not included.
import { Client } from 'pg';
import { createDb, createTaskWithCharge, Db, findTaskViews, listTasks, newId, usageByDayAndModel } from '@mediagen/db';
import { createTestSchema, TestSchema } from '@mediagen/db/testing';
import { loadScaleData } from '../lib/scale-data';
import { figure } from '../lib/report';
import { percentile } from '../lib/stats';
import type { BenchContext } from '../lib/context';
import type { Section } from './section';

const TASKS = Number(process.env.BENCH_DATA_SCALE_TASKS ?? 10_000_000);
const ROUNDS = Number(process.env.BENCH_DATA_SCALE_ROUNDS ?? 300);
const TARGET = 1.25;

interface Side {
  schema: TestSchema;
  db: Db;
  recent: string;
}

const pgClient = (s: TestSchema) => {
  const u = new URL(s.url);
  u.searchParams.delete('schema');
  return new Client({ connectionString: u.toString(), options: `-c search_path=${s.schema}` });
};

async function side(ctx: BenchContext, label: string, tasks: number): Promise<Side & { loadMs: number; size: string; steps: Record<string, number> }> {
  const schema = await createTestSchema(label, { baseUrl: ctx.stack.databaseUrl });
  const c = pgClient(schema);
  await c.connect();
  try {
    const loaded = tasks > 0 ? await loadScaleData(c, tasks) : { steps: {}, totalMs: 0 };
    if (tasks === 0) await c.query(`INSERT INTO "Account" ("id", "name", "balanceCents", "maxConcurrentTasks") SELECT 'acc' || g, 'a' || g, 100000000, 1000000 FROM generate_series(0, 999) g`);
    const size = (await c.query(`SELECT pg_size_pretty(sum(pg_total_relation_size(c.oid))) AS s FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind = 'r'`)).rows[0].s as string;
    const recent = tasks > 0 ? `t${String(tasks - 5).padStart(9, '0')}` : 'none';
    return { schema, db: createDb(schema.url, { poolSize: 4 }), recent, loadMs: loaded.totalMs, size, steps: loaded.steps };
  } finally {
    await c.end();
  }
}

type Probe = (s: Side) => Promise<unknown>;

const PROBES: { name: string; run: Probe }[] = [
  { name: 'poll read of a recent task', run: (s) => findTaskViews(s.db, [s.recent]) },
  {
    name: 'submit transaction (task + charge)',
    run: (s) =>
      createTaskWithCharge(s.db, { taskId: newId(), accountId: 'acc1', type: 'image', model: 'image-b-2.5', params: {}, costCents: 3, costMicros: 30_000n, billedSeconds: null, deadlineAt: new Date(Date.now() + 3_600_000) }),
  },
  { name: 'listing first page, busy account', run: (s) => listTasks(s.db, { accountId: 'acc0', limit: 20 }) },
  { name: 'console tasks page', run: (s) => listTasks(s.db, { limit: 50 }) },
  { name: 'usage page query (30 days, per day and model)', run: (s) => usageByDayAndModel(s.db, 'acc0', 30) },
];

async function run(ctx: BenchContext): Promise<void> {
  const { log, add } = ctx;
  log(`data-scale: loading ${TASKS.toLocaleString()} tasks with ledger rows and attempts (BENCH_DATA_SCALE_TASKS)`);
  const loaded = await side(ctx, 'bench_scale_full', TASKS);
  log(`data-scale: loaded in ${(loaded.loadMs / 1000).toFixed(1)} s (${JSON.stringify(loaded.steps)}), ${loaded.size}`);
  const empty = await side(ctx, 'bench_scale_empty', 0);
  try {
    add(figure(`data-scale: load of ${TASKS.toLocaleString()} tasks + ledger + attempts`, loaded.loadMs / 1000, 's', { better: 'lower' }));
    log(`data-scale: database size ${loaded.size}; ${ROUNDS} rounds per statement, empty and loaded in turn`);
    for (const p of PROBES) {
      const times: Record<'empty' | 'loaded', number[]> = { empty: [], loaded: [] };
      for (const s of [empty, loaded]) for (let i = 0; i < 10; i++) await p.run(s); // warm both
      for (let i = 0; i < ROUNDS; i++) {
        for (const [k, s] of [['empty', empty], ['loaded', loaded]] as const) {
          const t = process.hrtime.bigint();
          await p.run(s);
          times[k].push(Number(process.hrtime.bigint() - t) / 1e6);
        }
      }
      const p99 = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 99);
      const f = figure(`data-scale: ${p.name} p99 at ${TASKS.toLocaleString()} tasks`, p99(times.loaded), 'ms', { floor: p99(times.empty), target: TARGET, better: 'lower' });
      log(`data-scale: ${p.name}: p99 ${f.value} ms loaded vs ${f.floor} ms empty (x${f.ratio})`);
      add(f);
    }
  } finally {
    for (const s of [empty, loaded]) {
      await s.db.$disconnect();
      await s.schema.drop();
    }
  }
}

export const dataScaleSection: Section = { name: 'data-scale', run };
