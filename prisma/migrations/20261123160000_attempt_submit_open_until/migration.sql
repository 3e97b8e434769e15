-- AlterTable
ALTER TABLE "TaskAttempt" ADD COLUMN     "submitOpenUntil" TIMESTAMPTZ(3);
