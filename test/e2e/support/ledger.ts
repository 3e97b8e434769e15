// The money invariants every end-to-end test checks at the end: no money made or lost.
import type { Db } from '@mediagen/db';

export async function ledgerViolations(db: Db): Promise<string[]> {
  const problems: string[] = [];
  const balances = await db.$queryRaw<{ id: string; balance: number; sum: bigint }[]>`
    SELECT a."id", a."balanceCents" AS balance, COALESCE(SUM(l."amountCents"), 0) AS sum
      FROM "Account" a LEFT JOIN "LedgerEntry" l ON l."accountId" = a."id"
     GROUP BY a."id" HAVING a."balanceCents" <> COALESCE(SUM(l."amountCents"), 0)`;
  for (const b of balances) problems.push(`account ${b.id}: balance ${b.balance} != ledger sum ${b.sum}`);
  const dup = await db.$queryRaw<{ taskId: string; kind: string; n: bigint }[]>`
    SELECT "taskId", "kind"::text AS kind, COUNT(*) AS n FROM "LedgerEntry"
     WHERE "taskId" IS NOT NULL GROUP BY 1, 2 HAVING COUNT(*) > 1`;
  for (const d of dup) problems.push(`task ${d.taskId}: ${d.n} ${d.kind} entries`);
  const refunds = await db.$queryRaw<{ id: string; status: string; refunds: bigint; charges: bigint }[]>`
    SELECT t."id", t."status"::text AS status,
           COUNT(*) FILTER (WHERE l."kind" = 'refund') AS refunds,
           COUNT(*) FILTER (WHERE l."kind" = 'charge') AS charges
      FROM "Task" t LEFT JOIN "LedgerEntry" l ON l."taskId" = t."id"
     GROUP BY t."id", t."status"
    HAVING COUNT(*) FILTER (WHERE l."kind" = 'charge') <> 1
        OR (t."status" = 'failed') <> (COUNT(*) FILTER (WHERE l."kind" = 'refund') = 1)`;
  for (const r of refunds) problems.push(`task ${r.id} (${r.status}): ${r.charges} charges, ${r.refunds} refunds`);
  const counters = await db.$queryRaw<{ id: string; counter: number; open: bigint }[]>`
    SELECT a."id", a."tasksInProgress" AS counter, COUNT(t."id") AS open
      FROM "Account" a LEFT JOIN "Task" t ON t."accountId" = a."id" AND t."status" IN ('pending', 'processing')
     GROUP BY a."id" HAVING a."tasksInProgress" <> COUNT(t."id")`;
  for (const c of counters) problems.push(`account ${c.id}: tasksInProgress ${c.counter} but ${c.open} open tasks`);
  return problems;
}
