// A year of traffic, generated on the server (INSERT ... SELECT generate_series, no round trip per
// row): N tasks over `accounts` accounts and the last 12 months, one ledger charge and one attempt
// per task, the SpendDay summary those charges leave, in the steady state retention leaves (results
// older than 30 days marked deleted). Account `acc0` is the busy one (10% of the tasks). Used by the
// `data-scale` section and bench/tools/*-explain.ts; the client's search_path names the schema to
// fill, which must be freshly migrated and empty.
//
// Loading fast: the four big tables lose their keys, indexes and foreign keys for the load and get
// them back afterwards, exactly as the migrations made them (definitions read from the catalog
// first). Each index is then built once from sorted data instead of taking ten million random
// B-tree inserts, and no row pays a foreign-key trigger. With `connect` the inserts and the index
// builds are spread over several connections. A VACUUM ANALYZE at the end leaves the tables as
// autovacuum would after a while (visibility map set, hint bits written, statistics), so it does
// not start in the middle of the measurements. Every row is generated from its number and one
// anchor time, so tables filled by different statements agree with each other.
import type { Client } from 'pg';

const TABLES = ['Task', 'LedgerEntry', 'TaskAttempt', 'SpendDay'];

export interface ScaleLoad {
  steps: Record<string, number>;
  totalMs: number;
}

export interface LoadOptions {
  /** More connections on the same schema: the inserts and index builds run on `parallel` of them. */
  connect?: () => Promise<Client>;
  parallel?: number;
  /** SET maintenance_work_mem for the index builds (default 256MB). */
  maintenanceWorkMem?: string;
}

export async function loadScaleData(c: Client, n: number, accounts = 1000, opts: LoadOptions = {}): Promise<ScaleLoad> {
  const steps: Record<string, number> = {};
  const started = Date.now();
  const timed = async <T>(label: string, f: () => Promise<T>): Promise<T> => {
    const s = Date.now();
    const out = await f();
    steps[label] = Date.now() - s;
    return out;
  };
  const parallel = opts.connect ? Math.max(1, opts.parallel ?? 2) : 1;
  const clients: Client[] = [c];
  try {
    for (let i = 1; i < parallel; i++) clients.push(await opts.connect!());
    for (const k of clients) await k.query(`SET maintenance_work_mem = '${opts.maintenanceWorkMem ?? '256MB'}'`);
    /** Runs the statements on the connections, each taking the next one when it is free. */
    const spread = async (texts: string[]) => {
      let next = 0;
      await Promise.all(
        clients.map(async (k) => {
          while (next < texts.length) await k.query(texts[next++]);
        }),
      );
    };

    const anchor = (await c.query(`SELECT now()::text AS t`)).rows[0].t as string;
    const structure = await timed('drop keys and indexes', () => dropStructure(c));
    await timed('accounts', () =>
      c.query(`INSERT INTO "Account" ("id", "name", "balanceCents", "maxConcurrentTasks") SELECT 'acc' || g, 'a' || g, 100000000, 1000000 FROM generate_series(0, ${accounts - 1}) g`),
    );
    // Row g: task 't<g>', its time spread evenly over the 365 days before the anchor.
    const rows = (from: number, to: number) =>
      `(SELECT g, 't' || lpad(g::text, 9, '0') AS tid, 'acc' || CASE WHEN g % 10 = 0 THEN 0 ELSE g % ${accounts} END AS acc,
               '${anchor}'::timestamptz - interval '365 days' + (g::double precision / ${n}) * interval '365 days' AS ts,
               CASE WHEN g % 3 = 0 THEN 'video-a-h3' ELSE 'image-b-2.5' END AS model
          FROM generate_series(${from}, ${to}) g) s`;
    const parts = Math.max(1, parallel);
    const ranges = Array.from({ length: parts }, (_, i) => [Math.floor((n * i) / parts) + 1, Math.floor((n * (i + 1)) / parts)] as const).filter(([a, b]) => b >= a);
    const inserts = ranges.flatMap(([a, b]) => [
      `INSERT INTO "Task" ("id", "accountId", "type", "model", "params", "status", "progress", "costCents", "costMicros", "resultUrls",
                           "createdAt", "updatedAt", "startedAt", "finishedAt", "deadlineAt", "eventsEmittedAt", "expiresAt", "resultBytes", "resultsDeletedAt")
       SELECT tid, acc, 'video', model, '{}'::jsonb,
              CASE WHEN g % 20 = 0 THEN 'failed'::"TaskStatus" ELSE 'completed'::"TaskStatus" END, 100, 7, 70000,
              CASE WHEN g % 20 = 0 THEN '{}'::text[] ELSE ARRAY['https://h/files/results/' || tid || '/0.mp4'] END,
              ts, ts, ts, ts + interval '60 seconds', ts + interval '6 hours', ts + interval '61 seconds',
              CASE WHEN g % 20 = 0 THEN NULL ELSE ts + interval '60 seconds' + interval '30 days' END,
              CASE WHEN g % 20 = 0 THEN NULL ELSE 5000000 END,
              CASE WHEN g % 20 <> 0 AND ts + interval '60 seconds' + interval '30 days' < '${anchor}'::timestamptz THEN ts + interval '30 days 2 minutes' END
         FROM ${rows(a, b)}`,
      `INSERT INTO "LedgerEntry" ("id", "accountId", "taskId", "kind", "amountCents", "createdAt") SELECT 'l' || tid, acc, tid, 'charge', -7, ts FROM ${rows(a, b)}`,
      `INSERT INTO "TaskAttempt" ("id", "taskId", "attemptNo", "channelId", "upstreamId", "status", "createdAt", "finishedAt")
       SELECT 'a' || tid, tid, 1, 'sim', 'up-' || tid, 'completed', ts, ts + interval '60 seconds' FROM ${rows(a, b)}`,
    ]);
    // The summary the charges above would have left: one row per account, UTC day and model.
    inserts.push(
      `INSERT INTO "SpendDay" ("accountId", "day", "model", "cents", "tasks")
       SELECT acc, (ts AT TIME ZONE 'UTC')::date, model, 7 * count(*), count(*)::int FROM ${rows(1, n)} GROUP BY 1, 2, 3`,
    );
    await timed('rows (tasks, ledger, attempts, spend days)', () => spread(inserts));
    await timed('keys and indexes', () => spread([...structure.keys, ...structure.indexes]));
    await timed('foreign keys', () => spread(structure.foreignKeys));
    await timed('vacuum analyze', () => spread(TABLES.map((t) => `VACUUM (ANALYZE) "${t}"`).concat('ANALYZE "Account"')));
  } finally {
    for (const k of clients.slice(1)) await k.end().catch(() => undefined);
  }
  return { steps, totalMs: Date.now() - started };
}

interface Structure {
  keys: string[];
  indexes: string[];
  foreignKeys: string[];
}

/** Drops the big tables' primary keys, indexes and the foreign keys touching them; answers the statements that restore them. */
async function dropStructure(c: Client): Promise<Structure> {
  const names = TABLES.map((t) => `'${t}'`).join(', ');
  const fks = (
    await c.query(
      `SELECT con.conname, rel.relname AS tbl, pg_get_constraintdef(con.oid) AS def
         FROM pg_constraint con JOIN pg_class rel ON rel.oid = con.conrelid JOIN pg_class ref ON ref.oid = con.confrelid
        WHERE con.contype = 'f' AND rel.relnamespace = current_schema()::regnamespace AND (rel.relname IN (${names}) OR ref.relname IN (${names}))`,
    )
  ).rows as { conname: string; tbl: string; def: string }[];
  const pks = (
    await c.query(
      `SELECT con.conname, rel.relname AS tbl, pg_get_constraintdef(con.oid) AS def
         FROM pg_constraint con JOIN pg_class rel ON rel.oid = con.conrelid
        WHERE con.contype IN ('p', 'u') AND rel.relnamespace = current_schema()::regnamespace AND rel.relname IN (${names})`,
    )
  ).rows as { conname: string; tbl: string; def: string }[];
  const idx = (
    await c.query(
      `SELECT i.relname AS name, pg_get_indexdef(i.oid) AS def
         FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
        WHERE t.relnamespace = current_schema()::regnamespace AND t.relname IN (${names})
          AND NOT EXISTS (SELECT 1 FROM pg_constraint con WHERE con.conindid = x.indexrelid AND con.contype IN ('p', 'u'))`,
    )
  ).rows as { name: string; def: string }[];
  for (const f of fks) await c.query(`ALTER TABLE "${f.tbl}" DROP CONSTRAINT "${f.conname}"`);
  for (const k of pks) await c.query(`ALTER TABLE "${k.tbl}" DROP CONSTRAINT "${k.conname}"`);
  for (const i of idx) await c.query(`DROP INDEX "${i.name}"`);
  return {
    keys: pks.map((k) => `ALTER TABLE "${k.tbl}" ADD CONSTRAINT "${k.conname}" ${k.def}`),
    // pg_get_indexdef names the schema; the search_path names the same one.
    indexes: idx.map((i) => i.def),
    foreignKeys: fks.map((f) => `ALTER TABLE "${f.tbl}" ADD CONSTRAINT "${f.conname}" ${f.def}`),
  };
}

/** The usage page's query (per day and model over 30 days for one account), as the account pages would run it. */
export const USAGE_SQL = `SELECT date_trunc('day', l."createdAt") AS day, t."model", count(*) AS tasks, sum(-l."amountCents") AS cents
  FROM "LedgerEntry" l JOIN "Task" t ON t."id" = l."taskId"
 WHERE l."accountId" = $1 AND l."kind" = 'charge' AND l."createdAt" >= now() - interval '30 days'
 GROUP BY 1, 2`;
