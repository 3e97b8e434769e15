-- AlterTable
ALTER TABLE "Account" ADD COLUMN     "disabledAt" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "ApiKey" ADD COLUMN     "lastUsedAt" TIMESTAMPTZ(3),
ADD COLUMN     "name" TEXT;

-- CreateTable
CREATE TABLE "AccountHolder" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "passwordHash" TEXT NOT NULL,
    "emailVerifiedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AccountHolder_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "HolderSession" (
    "id" TEXT NOT NULL,
    "holderId" TEXT NOT NULL,
    "csrfToken" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "HolderSession_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "HolderToken" (
    "id" TEXT NOT NULL,
    "purpose" TEXT NOT NULL,
    "holderId" TEXT,
    "createdBy" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "usedAt" TIMESTAMPTZ(3),

    CONSTRAINT "HolderToken_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "TopUp" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "sessionId" TEXT NOT NULL,
    "requestedCents" BIGINT NOT NULL,
    "currency" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "creditedCents" BIGINT,
    "paymentRef" TEXT,
    "refundedCents" BIGINT NOT NULL DEFAULT 0,
    "disputedCents" BIGINT NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "creditedAt" TIMESTAMPTZ(3),

    CONSTRAINT "TopUp_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "StripeEvent" (
    "id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "StripeEvent_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "AccountHolder_accountId_key" ON "AccountHolder"("accountId");

-- CreateIndex
CREATE UNIQUE INDEX "AccountHolder_email_key" ON "AccountHolder"("email");

-- CreateIndex
CREATE INDEX "AccountHolder_createdAt_id_idx" ON "AccountHolder"("createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "HolderSession_holderId_idx" ON "HolderSession"("holderId");

-- CreateIndex
CREATE INDEX "HolderSession_expiresAt_idx" ON "HolderSession"("expiresAt");

-- CreateIndex
CREATE INDEX "HolderToken_holderId_idx" ON "HolderToken"("holderId");

-- CreateIndex
CREATE UNIQUE INDEX "TopUp_sessionId_key" ON "TopUp"("sessionId");

-- CreateIndex
CREATE INDEX "TopUp_paymentRef_idx" ON "TopUp"("paymentRef");

-- CreateIndex
CREATE INDEX "TopUp_accountId_createdAt_id_idx" ON "TopUp"("accountId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "TopUp_createdAt_id_idx" ON "TopUp"("createdAt" DESC, "id" DESC);

-- AddForeignKey
ALTER TABLE "AccountHolder" ADD CONSTRAINT "AccountHolder_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "HolderSession" ADD CONSTRAINT "HolderSession_holderId_fkey" FOREIGN KEY ("holderId") REFERENCES "AccountHolder"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "HolderToken" ADD CONSTRAINT "HolderToken_holderId_fkey" FOREIGN KEY ("holderId") REFERENCES "AccountHolder"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TopUp" ADD CONSTRAINT "TopUp_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

