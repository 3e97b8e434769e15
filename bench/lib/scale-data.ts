// A year of traffic in one statement per table (INSERT ... SELECT generate_series, no round trip
// per row): N tasks over `accounts` accounts and the last 12 months, one ledger charge and one
// attempt per task, in the steady state retention leaves (results older than 30 days marked
// deleted). Account `acc0` is the busy one (10% of the tasks). Used by the `data-scale` section and
// bench/tools/retention-explain.ts; the client's search_path names the schema to fill.
import type { Client } from 'pg';

export async function loadScaleData(c: Client, n: number, accounts = 1000): Promise<{ steps: Record<string, number>; totalMs: number }> {
  const steps: Record<string, number> = {};
  const timed = async (label: string, text: string) => {
    const s = Date.now();
    await c.query(text);
    steps[label] = Date.now() - s;
  };
  await timed('accounts', `INSERT INTO "Account" ("id", "name", "balanceCents", "maxConcurrentTasks") SELECT 'acc' || g, 'a' || g, 100000000, 1000000 FROM generate_series(0, ${accounts - 1}) g`);
  await timed(
    'tasks',
    `INSERT INTO "Task" ("id", "accountId", "type", "model", "params", "status", "progress", "costCents", "costMicros", "resultUrls",
                         "createdAt", "updatedAt", "startedAt", "finishedAt", "deadlineAt", "eventsEmittedAt", "expiresAt", "resultBytes", "resultsDeletedAt")
     SELECT 't' || lpad(g::text, 9, '0'),
            'acc' || CASE WHEN g % 10 = 0 THEN 0 ELSE g % ${accounts} END,
            'video', CASE WHEN g % 3 = 0 THEN 'video-a-h3' ELSE 'image-b-2.5' END, '{}'::jsonb,
            CASE WHEN g % 20 = 0 THEN 'failed'::"TaskStatus" ELSE 'completed'::"TaskStatus" END, 100, 7, 70000,
            CASE WHEN g % 20 = 0 THEN '{}'::text[] ELSE ARRAY['https://h/files/results/t' || lpad(g::text, 9, '0') || '/0.mp4'] END,
            ts, ts, ts, ts + interval '60 seconds', ts + interval '6 hours', ts + interval '61 seconds',
            CASE WHEN g % 20 = 0 THEN NULL ELSE ts + interval '60 seconds' + interval '30 days' END,
            CASE WHEN g % 20 = 0 THEN NULL ELSE 5000000 END,
            CASE WHEN g % 20 <> 0 AND ts + interval '60 seconds' + interval '30 days' < now() THEN ts + interval '30 days 2 minutes' END
       FROM (SELECT g, now() - interval '365 days' + (g::double precision / ${n}) * interval '365 days' AS ts FROM generate_series(1, ${n}) g) s`,
  );
  await timed('ledger', `INSERT INTO "LedgerEntry" ("id", "accountId", "taskId", "kind", "amountCents", "createdAt") SELECT 'l' || "id", "accountId", "id", 'charge', -7, "createdAt" FROM "Task"`);
  await timed(
    'spend days',
    `INSERT INTO "SpendDay" ("accountId", "day", "model", "cents", "tasks")
     SELECT l."accountId", (l."createdAt" AT TIME ZONE 'UTC')::date, t."model", -sum(l."amountCents"), count(*)::int
       FROM "LedgerEntry" l JOIN "Task" t ON t."id" = l."taskId" GROUP BY 1, 2, 3`,
  );
  await timed(
    'attempts',
    `INSERT INTO "TaskAttempt" ("id", "taskId", "attemptNo", "channelId", "upstreamId", "status", "createdAt", "finishedAt")
     SELECT 'a' || "id", "id", 1, 'sim', 'up-' || "id", 'completed', "createdAt", "finishedAt" FROM "Task"`,
  );
  await timed('analyze', 'ANALYZE');
  return { steps, totalMs: Object.values(steps).reduce((a, b) => a + b, 0) };
}

/** The usage page's query (per day and model over 30 days for one account), as the account pages would run it. */
export const USAGE_SQL = `SELECT date_trunc('day', l."createdAt") AS day, t."model", count(*) AS tasks, sum(-l."amountCents") AS cents
  FROM "LedgerEntry" l JOIN "Task" t ON t."id" = l."taskId"
 WHERE l."accountId" = $1 AND l."kind" = 'charge' AND l."createdAt" >= now() - interval '30 days'
 GROUP BY 1, 2`;
