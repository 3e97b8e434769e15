-- AlterTable
ALTER TABLE "TaskAttempt" ADD COLUMN     "submitSentAt" TIMESTAMPTZ(3),
ADD COLUMN     "upstreamCostMicros" BIGINT,
ADD COLUMN     "usageAmount" DOUBLE PRECISION,
ADD COLUMN     "usageUnits" TEXT;

-- CreateIndex
CREATE INDEX "TaskAttempt_channelId_upstreamId_idx" ON "TaskAttempt"("channelId", "upstreamId");

