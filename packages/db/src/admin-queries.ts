// Read-only queries behind the admin API: a ledger entry's shape (pages: task-list.ts listLedgerPage)
// and a task with its attempts.
// Each returns named fields, so a new column never reaches admin clients by accident.
import type { Db } from './client';
import type { TaskStatusName } from '@mediagen/catalog';

export interface LedgerRecord {
  id: string;
  kind: 'charge' | 'refund' | 'topup' | 'adjustment';
  amountCents: number;
  taskId: string | null;
  reason: string | null;
  createdAt: Date;
}

export interface AdminAttemptRecord {
  id: string;
  taskId: string;
  attemptNo: number;
  channelId: string;
  upstreamId: string | null;
  status: string;
  errorKind: string | null;
  errorMessage: string | null;
  createdAt: Date;
  finishedAt: Date | null;
}

export interface AdminTaskRecord {
  id: string;
  accountId: string;
  type: 'video' | 'image';
  model: string;
  params: unknown;
  status: TaskStatusName;
  progress: number;
  costCents: number;
  costMicros: bigint;
  billedSeconds: number | null;
  resultUrls: string[];
  errorCode: string | null;
  errorMessage: string | null;
  retryable: boolean | null;
  channelIndex: number;
  createdAt: Date;
  updatedAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  deadlineAt: Date;
  /** optimize_prompt (docs/prompt-format.md): the decided prompt, whether the optimizer wrote it, why not. */
  effectivePrompt: string | null;
  promptOptimized: boolean | null;
  promptFallbackReason: string | null;
  attempts: AdminAttemptRecord[];
}

const ATTEMPT_FIELDS = {
  id: true,
  taskId: true,
  attemptNo: true,
  channelId: true,
  upstreamId: true,
  status: true,
  errorKind: true,
  errorMessage: true,
  createdAt: true,
  finishedAt: true,
} as const;

/** The task with every attempt in order, or null. */
export async function findTaskWithAttempts(db: Db, taskId: string): Promise<AdminTaskRecord | null> {
  return db.task.findUnique({
    where: { id: taskId },
    select: {
      id: true,
      accountId: true,
      type: true,
      model: true,
      params: true,
      status: true,
      progress: true,
      costCents: true,
      costMicros: true,
      billedSeconds: true,
      resultUrls: true,
      errorCode: true,
      errorMessage: true,
      retryable: true,
      channelIndex: true,
      createdAt: true,
      updatedAt: true,
      startedAt: true,
      finishedAt: true,
      deadlineAt: true,
      effectivePrompt: true,
      promptOptimized: true,
      promptFallbackReason: true,
      attempts: { orderBy: { attemptNo: 'asc' }, select: ATTEMPT_FIELDS },
    },
  });
}
