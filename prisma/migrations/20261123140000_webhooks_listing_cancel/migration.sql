-- AlterTable
ALTER TABLE "Task" ADD COLUMN     "callbackUrl" TEXT,
ADD COLUMN     "cancelRequestedAt" TIMESTAMPTZ(3),
ADD COLUMN     "eventsEmittedAt" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "WebhookEndpoint" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "url" TEXT,
    "events" TEXT[],
    "secret" TEXT NOT NULL,
    "previousSecret" TEXT,
    "previousSecretExpiresAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deletedAt" TIMESTAMPTZ(3),

    CONSTRAINT "WebhookEndpoint_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WebhookDelivery" (
    "id" TEXT NOT NULL,
    "endpointId" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "taskId" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "eventType" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attemptCount" INTEGER NOT NULL DEFAULT 0,
    "roundAttempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMPTZ(3),
    "lastError" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deliveredAt" TIMESTAMPTZ(3),

    CONSTRAINT "WebhookDelivery_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WebhookDeliveryAttempt" (
    "id" TEXT NOT NULL,
    "deliveryId" TEXT NOT NULL,
    "attemptNo" INTEGER NOT NULL,
    "statusCode" INTEGER,
    "error" TEXT,
    "durationMs" INTEGER NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "WebhookDeliveryAttempt_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "WebhookEndpoint_accountId_idx" ON "WebhookEndpoint"("accountId");

-- CreateIndex
CREATE INDEX "WebhookDelivery_endpointId_createdAt_id_idx" ON "WebhookDelivery"("endpointId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "WebhookDelivery_status_nextAttemptAt_idx" ON "WebhookDelivery"("status", "nextAttemptAt");

-- CreateIndex
CREATE UNIQUE INDEX "WebhookDelivery_taskId_endpointId_target_eventType_key" ON "WebhookDelivery"("taskId", "endpointId", "target", "eventType");

-- CreateIndex
CREATE UNIQUE INDEX "WebhookDeliveryAttempt_deliveryId_attemptNo_key" ON "WebhookDeliveryAttempt"("deliveryId", "attemptNo");

-- CreateIndex
CREATE INDEX "Task_accountId_createdAt_id_idx" ON "Task"("accountId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Task_accountId_status_createdAt_id_idx" ON "Task"("accountId", "status", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Task_createdAt_id_idx" ON "Task"("createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Task_eventsEmittedAt_finishedAt_idx" ON "Task"("eventsEmittedAt", "finishedAt");

-- CreateIndex
CREATE INDEX "LedgerEntry_accountId_createdAt_id_idx" ON "LedgerEntry"("accountId", "createdAt" DESC, "id" DESC);

-- AddForeignKey
ALTER TABLE "WebhookEndpoint" ADD CONSTRAINT "WebhookEndpoint_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WebhookDelivery" ADD CONSTRAINT "WebhookDelivery_endpointId_fkey" FOREIGN KEY ("endpointId") REFERENCES "WebhookEndpoint"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WebhookDeliveryAttempt" ADD CONSTRAINT "WebhookDeliveryAttempt_deliveryId_fkey" FOREIGN KEY ("deliveryId") REFERENCES "WebhookDelivery"("id") ON DELETE RESTRICT ON UPDATE CASCADE;


-- Tasks settled before this migration have no events to send: mark their outbox as done, so the
-- reconciler's scan for settled tasks without events starts empty.
UPDATE "Task" SET "eventsEmittedAt" = "finishedAt" WHERE "finishedAt" IS NOT NULL;
