-- AlterTable
ALTER TABLE "Account" ADD COLUMN     "resultRetentionSeconds" INTEGER;

-- AlterTable
ALTER TABLE "Task" ADD COLUMN     "expiresAt" TIMESTAMPTZ(3),
ADD COLUMN     "resultBytes" BIGINT,
ADD COLUMN     "resultsDeletedAt" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "StorageDay" (
    "day" DATE NOT NULL,
    "filesStored" BIGINT NOT NULL DEFAULT 0,
    "bytesStored" BIGINT NOT NULL DEFAULT 0,
    "filesDeleted" BIGINT NOT NULL DEFAULT 0,
    "bytesDeleted" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "StorageDay_pkey" PRIMARY KEY ("day")
);

-- CreateIndex
CREATE INDEX "TaskAttempt_createdAt_idx" ON "TaskAttempt"("createdAt");

-- CreateIndex
CREATE INDEX "IdempotencyRecord_createdAt_idx" ON "IdempotencyRecord"("createdAt");

-- CreateIndex
CREATE INDEX "WebhookDelivery_createdAt_idx" ON "WebhookDelivery"("createdAt");


-- The retention job scans completed tasks whose files are still stored and will expire, by
-- expiry. Partial, so it holds only the results still on disk, not every task ever completed
-- (the Prisma schema language cannot express it, schema.prisma names it on Task.expiresAt).
CREATE INDEX "Task_results_expiring_idx" ON "Task"("expiresAt")
  WHERE "status" = 'completed' AND "resultsDeletedAt" IS NULL AND "expiresAt" IS NOT NULL;
