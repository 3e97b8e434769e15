-- Every timestamp becomes timestamptz. The old columns held UTC wall-clock values (Prisma wrote
-- them so), but now() wrote the session's local time into them: on a database whose TimeZone is
-- not UTC, those values were wrong and claims looked stale at once (docs/reliability.md). The
-- existing values are converted as UTC explicitly, whatever this session's TimeZone is.
ALTER TABLE "Account" ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC';
ALTER TABLE "ApiKey" ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
                     ALTER COLUMN "revokedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "revokedAt" AT TIME ZONE 'UTC';
ALTER TABLE "Task" ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
                   ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC',
                   ALTER COLUMN "startedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "startedAt" AT TIME ZONE 'UTC',
                   ALTER COLUMN "finishedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "finishedAt" AT TIME ZONE 'UTC',
                   ALTER COLUMN "deadlineAt" SET DATA TYPE TIMESTAMPTZ(3) USING "deadlineAt" AT TIME ZONE 'UTC';
ALTER TABLE "TaskAttempt" ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
                          ALTER COLUMN "finishedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "finishedAt" AT TIME ZONE 'UTC';
ALTER TABLE "LedgerEntry" ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC';
ALTER TABLE "IdempotencyRecord" ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC';
ALTER TABLE "InlineFile" ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC';

-- Money that cannot overflow: a refund or top-up near 2^31-1 cents used to throw and abort the
-- sweep batch it was in.
ALTER TABLE "Account" ALTER COLUMN "balanceCents" SET DATA TYPE BIGINT;
ALTER TABLE "LedgerEntry" ALTER COLUMN "amountCents" SET DATA TYPE BIGINT;

-- "Still my claim": the token of the request that holds an idempotency claim.
ALTER TABLE "IdempotencyRecord" ADD COLUMN "claimToken" TEXT;
