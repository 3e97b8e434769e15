// The measurements behind docs/data-retention.md: loads N tasks (with one ledger charge and one
// attempt each) over 1,000 accounts and 12 months into a schema of its own, by INSERT ... SELECT
// generate_series, in the steady state retention leaves (results older than 30 days deleted), then
// runs EXPLAIN (ANALYZE, BUFFERS) on the statements that walk big tables: the retention job's scans
// and deletes, a poll read, the listing's first page of a busy account, and a usage query (per day
// and model over 30 days for one account). Prints JSON; the schema is dropped at the end.
//   npx tsx bench/tools/retention-explain.ts            (RETENTION_EXPLAIN_TASKS, default 1,000,000)
import { Client } from 'pg';
import { createTestSchema } from '@mediagen/db/testing';
import { loadScaleData, USAGE_SQL } from '../lib/scale-data';

const N = Number(process.env.RETENTION_EXPLAIN_TASKS ?? 1_000_000);
const ACCOUNTS = 1000;

async function main(): Promise<void> {
  const t0 = Date.now();
  const schema = await createTestSchema('retention_explain');
  const url = new URL(schema.url);
  url.searchParams.delete('schema');
  const c = new Client({ connectionString: url.toString(), options: `-c search_path=${schema.schema}` });
  await c.connect();
  const q = (text: string, v: unknown[] = []) => c.query(text, v);
  try {
    const load = await loadScaleData(c, N, ACCOUNTS);
    const size = (await q(`SELECT pg_size_pretty(sum(pg_total_relation_size(c.oid))) AS s FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind = 'r'`)).rows[0].s;
    const taskSize = (await q(`SELECT pg_size_pretty(pg_total_relation_size('"Task"')) AS s`)).rows[0].s;

    const explain = async (label: string, text: string, v: unknown[] = []) => {
      const rows = (await q(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, v)).rows[0]['QUERY PLAN'][0];
      const nodes: string[] = [];
      const walk = (p: { 'Node Type': string; 'Index Name'?: string; Plans?: unknown[] }) => {
        nodes.push(p['Index Name'] ? `${p['Node Type']} ${p['Index Name']}` : p['Node Type']);
        for (const k of (p.Plans ?? []) as (typeof p)[]) walk(k);
      };
      walk(rows.Plan);
      return { label, ms: rows['Execution Time'], plan: nodes.join(' > ') };
    };
    const recent = `t${String(N - 5).padStart(9, '0')}`;
    const out = [];
    out.push(await explain('poll read (findTaskViews)', `SELECT "accountId", "id", "type", "status", "progress", "resultUrls", "errorCode", "errorMessage", "retryable", "expiresAt" FROM "Task" WHERE "id" = ANY($1::text[])`, [[recent]]));
    out.push(await explain('listing first page, busy account', `SELECT "id", "status", "resultUrls", "expiresAt", "createdAt" FROM "Task" WHERE "accountId" = 'acc0' ORDER BY "createdAt" DESC, "id" DESC LIMIT 21`));
    out.push(await explain('console tasks page (all accounts)', `SELECT "id", "accountId", "status", "createdAt" FROM "Task" ORDER BY "createdAt" DESC, "id" DESC LIMIT 51`));
    out.push(await explain('usage: per day and model, 30 days, busy account', USAGE_SQL, ['acc0']));
    out.push(
      await explain('retention: expired results scan (1,000)', `SELECT "id", "resultUrls" FROM "Task" WHERE "status" = 'completed' AND "resultsDeletedAt" IS NULL AND "expiresAt" IS NOT NULL AND "expiresAt" <= now() ORDER BY "expiresAt" LIMIT 1000`),
    );
    out.push(
      await explain(
        'retention: old attempts batch select (1,000)',
        `SELECT a."id" FROM "TaskAttempt" a JOIN "Task" t ON t."id" = a."taskId" WHERE a."createdAt" < now() - interval '90 days' AND t."status" IN ('completed', 'failed') ORDER BY a."createdAt" LIMIT 1000`,
      ),
    );
    await q('BEGIN');
    out.push(
      await explain(
        'retention: delete 1,000 old attempts',
        `DELETE FROM "TaskAttempt" WHERE "id" = ANY(ARRAY(SELECT a."id" FROM "TaskAttempt" a JOIN "Task" t ON t."id" = a."taskId" WHERE a."createdAt" < now() - interval '90 days' AND t."status" IN ('completed', 'failed') ORDER BY a."createdAt" LIMIT 1000))`,
      ),
    );
    await q('ROLLBACK');
    await q('BEGIN');
    out.push(
      await explain(
        'retention: delete 1,000 old attempts, IN (subquery) form (rejected)',
        `DELETE FROM "TaskAttempt" WHERE "id" IN (SELECT a."id" FROM "TaskAttempt" a JOIN "Task" t ON t."id" = a."taskId" WHERE a."createdAt" < now() - interval '90 days' AND t."status" IN ('completed', 'failed') ORDER BY a."createdAt" LIMIT 1000)`,
      ),
    );
    await q('ROLLBACK');
    await q('BEGIN');
    out.push(
      await explain(
        'retention: mark 1,000 expired results deleted (+ StorageDay)',
        `WITH ids AS (SELECT "id" FROM "Task" WHERE "status" = 'completed' AND "resultsDeletedAt" IS NULL AND "expiresAt" <= now() + interval '3 days' ORDER BY "expiresAt" LIMIT 1000),
              marked AS (UPDATE "Task" SET "resultsDeletedAt" = now() WHERE "id" = ANY(ARRAY(SELECT "id" FROM ids)) AND "resultsDeletedAt" IS NULL RETURNING cardinality("resultUrls") AS files, COALESCE("resultBytes", 0) AS bytes)
         SELECT count(*), sum(files), sum(bytes) FROM marked`,
      ),
    );
    await q('ROLLBACK');
    await q('BEGIN');
    out.push(
      await explain(
        'retention change: re-stamp 5,000 of the busy account',
        `WITH page AS (SELECT "id", "createdAt" FROM "Task" WHERE "accountId" = 'acc0' AND "status" = 'completed' ORDER BY "createdAt" DESC, "id" DESC LIMIT 5000)
         UPDATE "Task" t SET "expiresAt" = t."finishedAt" + make_interval(secs => 86400)
          WHERE t."id" = ANY(ARRAY(SELECT "id" FROM page)) AND t."resultsDeletedAt" IS NULL AND (t."expiresAt" IS NULL OR t."expiresAt" > now())`,
      ),
    );
    await q('ROLLBACK');
    // Without the createdAt index, the same batch select (what the decision avoids).
    await q('BEGIN');
    await q('DROP INDEX "TaskAttempt_createdAt_idx"');
    out.push(
      await explain(
        'retention: old attempts batch select WITHOUT the createdAt index',
        `SELECT a."id" FROM "TaskAttempt" a JOIN "Task" t ON t."id" = a."taskId" WHERE a."createdAt" < now() - interval '90 days' AND t."status" IN ('completed', 'failed') ORDER BY a."createdAt" LIMIT 1000`,
      ),
    );
    await q('ROLLBACK');
    console.log(JSON.stringify({ tasks: N, accounts: ACCOUNTS, loadMs: load.steps, totalLoadMs: load.totalMs, dbSize: size, taskTableSize: taskSize, explain: out, wallMs: Date.now() - t0 }, null, 2));
  } finally {
    await c.end();
    await schema.drop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
