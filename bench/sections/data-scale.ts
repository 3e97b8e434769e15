// Section `data-scale` (docs/data-retention.md, docs/benchmark.md "Data at scale"): what a client,
// an operator and an account holder notice over HTTP with a year of traffic in Postgres, against
// the same requests on an empty database, in one run.
//
// Two schemas of the benchmark database get every migration. One is filled with
// BENCH_DATA_SCALE_TASKS tasks (default 10,000,000; a ledger charge and an attempt each, 1,000
// accounts, 12 months, bench/lib/scale-data.ts); the other holds the same 1,000 accounts and no
// tasks. Each schema gets a gateway of its own (same code, same settings, its own Redis prefix).
// On each side the busy account `acc0` (10% of the loaded tasks) gets an API key and an account
// holder, and a console operator is made; both sign in through their forms as a browser does.
// Measured, one request at a time: the spec's poll of a recent task, a submit (no worker consumes
// these gateways' queue: the tasks stay pending), the listing's first page of the busy account,
// the console's tasks page (operator session) and the holder's usage page (holder session).
//
// Noise: the machine is shared, so the two sides are measured in alternating slices of
// BENCH_DATA_SCALE_SLICE requests per probe (default 1: request by request; the side going first
// alternates too) until each side has BENCH_DATA_SCALE_ROUNDS requests per probe. A stall of the
// machine longer than one request then lands on both sides; with slices of 10 or 20 at a load
// average of 15-25 the p99s (the 3rd-6th slowest requests) moved by 1.7x either way from run to
// run while every p50 agreed within 10%. Target: each loaded p99 at most 1.25x the empty one.
//
// BENCH_DATA_SCALE_KEEP=1 keeps the loaded schema for the next run with the same knob, size and
// migrations (in the database `<bench database>_scale`, which the bench never drops: DROP DATABASE
// it when done), so a re-measurement at 10,000,000 tasks skips the ten-minute load.
//
// The poll cache is off on both gateways (POLL_CACHE_MS=0): a cached poll never reaches Postgres,
// so only the database read can depend on the data's size, and every measured poll makes it.
import os from 'node:os';
import { Client } from 'pg';
import { hashPassword } from '@mediagen/console';
import { createTestSchema, TestSchema } from '@mediagen/db/testing';
import fs from 'node:fs';
import path from 'node:path';
import { createDatabaseIfMissing } from '../../scripts/prepare-db';
import { freePort, Proc, startProcess, stopProcess, waitHealthy } from '../lib/procs';
import { figure } from '../lib/report';
import { loadScaleData } from '../lib/scale-data';
import { IMAGE_BODY } from '../lib/settings';
import { percentile } from '../lib/stats';
import type { BenchContext } from '../lib/context';
import type { Section } from './section';

const TASKS = Number(process.env.BENCH_DATA_SCALE_TASKS ?? 10_000_000);
const ROUNDS = Number(process.env.BENCH_DATA_SCALE_ROUNDS ?? 600);
const SLICE = Number(process.env.BENCH_DATA_SCALE_SLICE ?? 1);
const LOAD_CONNECTIONS = Number(process.env.BENCH_DATA_SCALE_LOAD_CONNECTIONS ?? 2);
const KEEP = process.env.BENCH_DATA_SCALE_KEEP === '1';
const TARGET = 1.25;
const WARM_TASKS = 60;
const ACCOUNTS = 1000;
const BUSY = 'acc0';
const PASSWORD = 'bench data-scale password';

interface Side {
  label: 'empty' | 'loaded';
  schema: TestSchema;
  gateway: Proc | null;
  base: string;
  key: string;
  operatorCookie: string;
  holderCookie: string;
  /** The task polled: the newest one of the busy account (submitted during the warm-up). */
  recent: string;
}

const pgClient = async (s: TestSchema): Promise<Client> => {
  const u = new URL(s.url);
  u.searchParams.delete('schema');
  const c = new Client({ connectionString: u.toString(), options: `-c search_path=${s.schema}` });
  await c.connect();
  return c;
};

const cookiePairs = (r: Response) => r.headers.getSetCookie().map((c) => c.split(';')[0]);

async function call(base: string, path: string, init: RequestInit = {}): Promise<{ status: number; text: string; res: Response }> {
  const res = await fetch(`${base}${path}`, { redirect: 'manual', ...init });
  return { status: res.status, text: await res.text(), res };
}

async function admin(ctx: BenchContext, side: Side, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const r = await call(side.base, path, {
    method,
    headers: { Authorization: `Bearer ${ctx.stack.adminToken}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (r.status >= 300) throw new Error(`data-scale (${side.label}): admin ${method} ${path} answered ${r.status} ${r.text.slice(0, 200)}`);
  return JSON.parse(r.text) as Record<string, unknown>;
}

/** Signs in through a form (GET for its CSRF token and cookie, POST the fields) and answers the session's cookies. */
async function signIn(side: Side, path: string, fields: Record<string, string>): Promise<string> {
  const form = await call(side.base, path);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)?.[1];
  if (form.status !== 200 || !csrf) throw new Error(`data-scale (${side.label}): ${path} form answered ${form.status}`);
  const formCookies = cookiePairs(form.res);
  const r = await call(side.base, path, {
    method: 'POST',
    headers: { Cookie: formCookies.join('; '), 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
  });
  if (r.status !== 303) throw new Error(`data-scale (${side.label}): sign-in at ${path} answered ${r.status}`);
  const got = new Map([...formCookies, ...cookiePairs(r.res)].map((p) => [p.slice(0, p.indexOf('=')), p] as const));
  return [...got.values()].filter((p) => !p.endsWith('=')).join('; ');
}

const MIGRATIONS = path.resolve(__dirname, '../../prisma/migrations');

/**
 * The kept loaded schema of an earlier run with the same size and migrations, or a new schema to
 * load and keep (any stale one dropped), in the database `<bench database>_scale`.
 */
async function keptSchema(ctx: BenchContext, tasks: number): Promise<{ schema: TestSchema; reused: boolean; mark: string }> {
  const u = new URL(ctx.stack.databaseUrl);
  u.pathname = `${u.pathname}_scale`;
  u.searchParams.delete('schema');
  const base = u.toString();
  await createDatabaseIfMissing(base);
  const mark = `data-scale ${tasks} ${fs.readdirSync(MIGRATIONS).filter((d) => fs.existsSync(path.join(MIGRATIONS, d, 'migration.sql'))).sort().at(-1)}`;
  const c = new Client({ connectionString: base });
  await c.connect();
  try {
    const found = (await c.query(`SELECT nspname FROM pg_namespace WHERE nspname LIKE 'bench_scale_loaded_%' AND obj_description(oid, 'pg_namespace') = $1`, [mark])).rows[0];
    if (found) {
      const url = new URL(base);
      url.searchParams.set('schema', found.nspname);
      return { schema: { url: url.toString(), schema: found.nspname, drop: async () => undefined }, reused: true, mark };
    }
    for (const r of (await c.query(`SELECT nspname FROM pg_namespace WHERE nspname LIKE 'bench_scale_loaded_%'`)).rows) await c.query(`DROP SCHEMA "${r.nspname}" CASCADE`);
  } finally {
    await c.end();
  }
  const schema = await createTestSchema('bench_scale_loaded', { baseUrl: base });
  return { schema: { ...schema, drop: async () => undefined }, reused: false, mark };
}

/** `made`: receives the side as soon as it has a schema, so the section's cleanup finds whatever was made. */
async function prepareSide(ctx: BenchContext, label: Side['label'], tasks: number, made: Side[]): Promise<Side & { loadMs: number; steps: Record<string, number>; reused: boolean }> {
  const kept = tasks > 0 && KEEP ? await keptSchema(ctx, tasks) : null;
  const schema = kept?.schema ?? (await createTestSchema(`bench_scale_${label}`, { baseUrl: ctx.stack.databaseUrl }));
  const side: Side = { label, schema, gateway: null, base: '', key: '', operatorCookie: '', holderCookie: '', recent: '' };
  made.push(side);
  const c = await pgClient(schema);
  let loaded = { steps: {} as Record<string, number>, totalMs: 0 };
  try {
    if (tasks > 0 && !kept?.reused) {
      loaded = await loadScaleData(c, tasks, ACCOUNTS, { connect: () => pgClient(schema), parallel: LOAD_CONNECTIONS });
      if (kept) await c.query(`COMMENT ON SCHEMA "${schema.schema}" IS '${kept.mark}'`);
    } else if (tasks === 0) {
      await c.query(`INSERT INTO "Account" ("id", "name", "balanceCents", "maxConcurrentTasks") SELECT 'acc' || g, 'a' || g, 100000000, 1000000 FROM generate_series(0, ${ACCOUNTS - 1}) g`);
      await c.query('ANALYZE');
    }
    // The busy account's holder, email already confirmed (what sign-up and the emailed link leave);
    // a kept schema has it from the run that loaded it.
    await c.query(`INSERT INTO "AccountHolder" ("id", "accountId", "email", "passwordHash", "emailVerifiedAt") VALUES ('hld_bench_scale', $1, 'scale@example.com', $2, now()) ON CONFLICT DO NOTHING`, [
      BUSY,
      await hashPassword(PASSWORD),
    ]);
  } finally {
    await c.end();
  }

  const port = await freePort();
  side.base = `http://127.0.0.1:${port}`;
  side.gateway = startProcess(`gateway-scale-${label}`, 'apps/gateway/src/main.ts', {
    ...ctx.stack.env,
    DATABASE_URL: schema.url,
    PORT: String(port),
    PUBLIC_BASE_URL: side.base,
    REDIS_PREFIX: `${ctx.stack.prefix}-scale-${label}`,
    POLL_CACHE_MS: '0',
  }, ctx.stack.logDir);
  await waitHealthy(`${side.base}/readyz`, side.gateway);

  side.key = String((await admin(ctx, side, 'POST', `/admin/accounts/${BUSY}/api-keys`)).key);
  const operator = { name: 'bench-scale', password: PASSWORD };
  await admin(ctx, side, 'POST', '/admin/operators', { ...operator, role: 'viewer' });
  side.operatorCookie = await signIn(side, '/console/login', { ...operator, next: '/console/tasks' });
  side.holderCookie = await signIn(side, '/account/signin', { email: 'scale@example.com', password: PASSWORD, next: '/account' });
  return Object.assign(side, { loadMs: loaded.totalMs, steps: loaded.steps, reused: kept?.reused ?? false });
}

interface Probe {
  name: string;
  /** One request; throws when the answer is not what the page or client expects. */
  run: (s: Side) => Promise<void>;
}

async function expect200(s: Side, what: string, path: string, init: RequestInit, check: (text: string) => boolean): Promise<string> {
  const r = await call(s.base, path, init);
  if (r.status !== 200 || !check(r.text)) throw new Error(`data-scale (${s.label}): ${what} answered ${r.status}: ${r.text.slice(0, 200)}`);
  return r.text;
}

const bearer = (s: Side) => ({ Authorization: `Bearer ${s.key}` });

async function submit(s: Side): Promise<string> {
  const text = await expect200(s, 'submit', '/api/image/generate', { method: 'POST', headers: { ...bearer(s), 'Content-Type': 'application/json' }, body: JSON.stringify(IMAGE_BODY) }, (t) => t.includes('"pending"'));
  return (JSON.parse(text) as { taskId: string }).taskId;
}

const PROBES: Probe[] = [
  {
    name: 'poll of a recent task (GET /api/image/tasks/:id, uncached)',
    run: async (s) => void (await expect200(s, 'poll', `/api/image/tasks/${s.recent}`, { headers: bearer(s) }, (t) => t.includes('"status":"pending"'))),
  },
  { name: 'submit (POST /api/image/generate)', run: async (s) => void (await submit(s)) },
  {
    name: 'listing first page, busy account (GET /api/tasks)',
    run: async (s) => void (await expect200(s, 'listing', '/api/tasks', { headers: bearer(s) }, (t) => (JSON.parse(t) as { data: unknown[] }).data.length > 0)),
  },
  {
    name: 'console tasks page (operator session)',
    run: async (s) => void (await expect200(s, 'console tasks page', '/console/tasks', { headers: { Cookie: s.operatorCookie } }, (t) => t.includes(BUSY))),
  },
  {
    name: 'usage page (account holder session)',
    run: async (s) => void (await expect200(s, 'usage page', '/account/usage', { headers: { Cookie: s.holderCookie } }, (t) => t.includes('Usage'))),
  },
];

async function tableSizes(s: TestSchema): Promise<{ total: number; tables: string }> {
  const c = await pgClient(s);
  try {
    const rows = (
      await c.query(
        `SELECT c.relname AS t, pg_total_relation_size(c.oid) AS b, pg_relation_size(c.oid) AS heap
           FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' ORDER BY 2 DESC`,
      )
    ).rows as { t: string; b: string; heap: string }[];
    const mb = (b: string | number) => `${Math.round(Number(b) / 1e6).toLocaleString('en-US')} MB`;
    return {
      total: rows.reduce((a, r) => a + Number(r.b), 0),
      tables: rows.filter((r) => Number(r.b) > 10e6).map((r) => `${r.t} ${mb(r.b)} (heap ${mb(r.heap)})`).join(', '),
    };
  } finally {
    await c.end();
  }
}

async function databaseSize(url: string): Promise<number> {
  const u = new URL(url);
  u.searchParams.delete('schema');
  const c = new Client({ connectionString: u.toString() });
  await c.connect();
  try {
    return Number((await c.query('SELECT pg_database_size(current_database()) AS b')).rows[0].b);
  } finally {
    await c.end();
  }
}

async function run(ctx: BenchContext): Promise<void> {
  const { log, add } = ctx;
  const sides: Side[] = [];
  try {
    log(`data-scale: loading ${TASKS.toLocaleString('en-US')} tasks with ledger rows and attempts (BENCH_DATA_SCALE_TASKS), ${LOAD_CONNECTIONS} connections`);
    const loaded = await prepareSide(ctx, 'loaded', TASKS, sides);
    const sizes = await tableSizes(loaded.schema);
    const dbBytes = await databaseSize(loaded.schema.url);
    if (loaded.reused) log(`data-scale: reusing the loaded schema ${loaded.schema.schema} kept by an earlier run (BENCH_DATA_SCALE_KEEP)`);
    else {
      log(`data-scale: loaded in ${(loaded.loadMs / 1000).toFixed(1)} s (${Object.entries(loaded.steps).map(([k, v]) => `${k} ${(v / 1000).toFixed(1)} s`).join(', ')})`);
      add(figure(`data-scale: load of ${TASKS.toLocaleString('en-US')} tasks + ledger + attempts`, loaded.loadMs / 1000, 's', { better: 'lower' }));
    }
    log(`data-scale: loaded schema ${(sizes.total / 1e9).toFixed(2)} GB (${sizes.tables}); pg_database_size ${(dbBytes / 1e9).toFixed(2)} GB`);
    add(figure(`data-scale: loaded schema size (tables and indexes)`, sizes.total / 1e6, 'MB', { better: 'lower' }));
    const empty = await prepareSide(ctx, 'empty', 0, sides);

    // Warm-up, unmeasured: each gateway's first requests, and a full console page (50) of the busy
    // account's tasks on both sides, so both render the same number of rows; the newest is polled.
    for (const s of sides) {
      for (let i = 0; i < WARM_TASKS; i++) s.recent = await submit(s);
      for (const p of PROBES) for (let i = 0; i < 5; i++) await p.run(s);
    }
    log(`data-scale: ${ROUNDS} requests per probe and side, in alternating slices of ${SLICE}; load average ${ctxLoad()}`);
    const times = new Map(PROBES.map((p) => [p.name, { empty: [] as number[], loaded: [] as number[] }]));
    for (let slice = 0; slice * SLICE < ROUNDS; slice++) {
      const order = slice % 2 === 0 ? [empty, loaded] : [loaded, empty];
      const n = Math.min(SLICE, ROUNDS - slice * SLICE);
      for (const p of PROBES) {
        for (const s of order) {
          const into = times.get(p.name)![s.label];
          for (let i = 0; i < n; i++) {
            const t = performance.now();
            await p.run(s);
            into.push(performance.now() - t);
          }
        }
      }
    }
    const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
    for (const p of PROBES) {
      const t = times.get(p.name)!;
      const [e, l] = [sorted(t.empty), sorted(t.loaded)];
      const f = figure(`data-scale: ${p.name} p99 at ${TASKS.toLocaleString('en-US')} tasks`, percentile(l, 99), 'ms', { floor: percentile(e, 99), target: TARGET, better: 'lower' });
      log(`data-scale: ${p.name}: p99 ${f.value} ms loaded vs ${f.floor} ms empty (x${f.ratio}); p50 ${percentile(l, 50).toFixed(2)} vs ${percentile(e, 50).toFixed(2)} ms`);
      add(f);
    }
    log(`data-scale: done; load average ${ctxLoad()}`);
  } finally {
    for (const s of sides) {
      if (s.gateway) await stopProcess(s.gateway);
      await s.schema.drop();
    }
  }
}

const ctxLoad = () => os.loadavg().map((v) => v.toFixed(1)).join(' ');

export const dataScaleSection: Section = { name: 'data-scale', run };
