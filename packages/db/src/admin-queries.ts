// Read-only queries behind the admin API: the ledger of an account and a task with its attempts.
// Each returns named fields, so a new column never reaches admin clients by accident.
import type { Db } from './client';

export interface LedgerRecord {
  id: string;
  kind: 'charge' | 'refund' | 'topup' | 'adjustment';
  amountCents: number;
  taskId: string | null;
  reason: string | null;
  createdAt: Date;
}

/** The account's ledger entries, newest first (ties broken by id, so pages are stable). */
export async function listLedger(db: Db, accountId: string, limit: number): Promise<LedgerRecord[]> {
  const rows = await db.ledgerEntry.findMany({
    where: { accountId },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: limit,
    select: { id: true, kind: true, amountCents: true, taskId: true, reason: true, createdAt: true },
  });
  // BIGINT in the database, a JS number here (exact: see MAX_BALANCE_CENTS).
  return rows.map((r) => ({ ...r, amountCents: Number(r.amountCents) }));
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
  status: 'pending' | 'processing' | 'completed' | 'failed';
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
