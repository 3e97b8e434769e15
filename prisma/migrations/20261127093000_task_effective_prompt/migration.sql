-- AlterTable
ALTER TABLE "Task" ADD COLUMN     "effectivePrompt" TEXT,
ADD COLUMN     "promptFallbackReason" TEXT,
ADD COLUMN     "promptOptimized" BOOLEAN;

