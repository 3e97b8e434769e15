-- CreateTable
CREATE TABLE "SpendDay" (
    "accountId" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "model" TEXT NOT NULL,
    "cents" BIGINT NOT NULL DEFAULT 0,
    "tasks" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "SpendDay_pkey" PRIMARY KEY ("accountId","day","model")
);


-- Backfill from the ledger: every task charge and refund by its UTC day and the task model.
-- Charges written by a previous release between this migration and its rollout are not counted
-- here: re-run this statement after the rollout with ON CONFLICT replaced by a delete and insert
-- if that gap matters.
INSERT INTO "SpendDay" ("accountId", "day", "model", "cents", "tasks")
SELECT l."accountId", (l."createdAt" AT TIME ZONE 'UTC')::date, t."model",
       -sum(l."amountCents"), count(*) FILTER (WHERE l."kind" = 'charge')::int
  FROM "LedgerEntry" l JOIN "Task" t ON t."id" = l."taskId"
 WHERE l."kind" IN ('charge', 'refund')
 GROUP BY 1, 2, 3;
