// EXPLAIN ANALYZE of the account holder's usage query on a loaded schema: the page's read of
// SpendDay (usageByDayAndModel), then the ledger join it replaced with the committed indexes, then
// with each candidate index in USAGE_EXPLAIN_EXTRA (';'-separated DDL), and with USAGE_EXPLAIN_DENORM
// set, a model column copied onto the ledger (docs/data-retention.md, Figures).
//   USAGE_EXPLAIN_TASKS=300000 npx tsx bench/tools/usage-explain.ts
import { Client } from 'pg';
import { createTestSchema } from '@mediagen/db/testing';
import { loadScaleData } from '../lib/scale-data';

const N = Number(process.env.USAGE_EXPLAIN_TASKS ?? 300_000);
const SQL = `SELECT to_char(l."createdAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS "day", t."model",
            -sum(l."amountCents") AS "cents", count(*) FILTER (WHERE l."kind" = 'charge')::int AS "tasks"
       FROM "LedgerEntry" l JOIN "Task" t ON t."id" = l."taskId"
      WHERE l."accountId" = $1 AND l."createdAt" >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - make_interval(days => $2 - 1)
        AND l."kind" IN ('charge', 'refund')
      GROUP BY 1, 2 ORDER BY 1, 2`;

async function main(): Promise<void> {
  const schema = await createTestSchema('usage_explain');
  const url = new URL(schema.url);
  url.searchParams.delete('schema');
  const c = new Client({ connectionString: url.toString(), options: `-c search_path=${schema.schema}` });
  await c.connect();
  try {
    await loadScaleData(c, N, 1000);
    const run = async (label: string) => {
      for (let i = 0; i < 3; i++) await c.query(SQL, ['acc0', 30]);
      const r = (await c.query(`EXPLAIN (ANALYZE, BUFFERS) ${SQL}`, ['acc0', 30])).rows.map((x) => x['QUERY PLAN']).join('\n');
      console.log(`== ${label}\n${r}\n`);
    };
    const page = `SELECT to_char("day", 'YYYY-MM-DD') AS "day", "model", "cents", "tasks" FROM "SpendDay"
      WHERE "accountId" = $1 AND "day" >= (now() AT TIME ZONE 'UTC')::date - ($2::int - 1) ORDER BY 1, 2`;
    for (let i = 0; i < 3; i++) await c.query(page, ['acc0', 30]);
    console.log(`== SpendDay\n${(await c.query(`EXPLAIN (ANALYZE, BUFFERS) ${page}`, ['acc0', 30])).rows.map((x) => x['QUERY PLAN']).join('\n')}\n`);
    await run('ledger join, committed indexes');
    if (process.env.USAGE_EXPLAIN_DENORM) {
      // What a model column on the ledger would give: no Task probe, one index-only range scan.
      await c.query(`ALTER TABLE "LedgerEntry" ADD COLUMN "model" text`);
      await c.query(`UPDATE "LedgerEntry" l SET "model" = t."model" FROM "Task" t WHERE t."id" = l."taskId"`);
      await c.query(`CREATE INDEX "x_ledger_model" ON "LedgerEntry" ("accountId", "createdAt") INCLUDE ("kind", "amountCents", "model")`);
      await c.query('VACUUM ANALYZE "LedgerEntry"');
      const d = SQL.replace('t."model"', 'l."model"').replace(' JOIN "Task" t ON t."id" = l."taskId"', '');
      for (let i = 0; i < 3; i++) await c.query(d, ['acc0', 30]);
      const r = (await c.query(`EXPLAIN (ANALYZE, BUFFERS) ${d}`, ['acc0', 30])).rows.map((x) => x['QUERY PLAN']).join('\n');
      console.log(`== ledger.model denormalised\n${r}\n`);
    }
    for (const ddl of (process.env.USAGE_EXPLAIN_EXTRA ?? '').split(';').filter((s) => s.trim())) {
      await c.query(ddl);
      await c.query('VACUUM ANALYZE "LedgerEntry"');
      await c.query('VACUUM ANALYZE "Task"');
      await run(ddl);
    }
  } finally {
    await c.end();
    await schema.drop();
  }
}
main().catch((e) => { console.error(e); process.exit(1); });
