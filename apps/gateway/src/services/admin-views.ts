// The bodies the admin API answers with (docs/api.md), built field by field from the
// records packages/db returns: a column added to the schema reaches admin clients only when it is
// added here. Field names are the ones clients have always seen.
import { effectivePromptOf, type AccountRecord, type AdminTaskRecord, type ApiKeyRecord, type LedgerRecord } from '@mediagen/db';

export interface AccountView {
  id: string;
  name: string;
  balanceCents: number;
  tasksInProgress: number;
  maxConcurrentTasks: number;
  rateLimitPerMinute: number;
  /** The account's own result retention in seconds; null: the service default (RESULT_RETENTION_SECONDS). */
  resultRetentionSeconds: number | null;
  createdAt: string;
}

export function accountView(a: AccountRecord, defaultRateLimitPerMinute: number): AccountView {
  return {
    id: a.id,
    name: a.name,
    balanceCents: a.balanceCents,
    tasksInProgress: a.tasksInProgress,
    maxConcurrentTasks: a.maxConcurrentTasks,
    rateLimitPerMinute: a.rateLimitPerMinute ?? defaultRateLimitPerMinute,
    resultRetentionSeconds: a.resultRetentionSeconds,
    createdAt: a.createdAt.toISOString(),
  };
}

export const apiKeyView = (k: ApiKeyRecord) => ({
  id: k.id,
  prefix: k.prefix,
  createdAt: k.createdAt.toISOString(),
  revokedAt: k.revokedAt?.toISOString() ?? null,
});

export const ledgerEntryView = (e: LedgerRecord) => ({
  id: e.id,
  kind: e.kind,
  amountCents: e.amountCents,
  taskId: e.taskId,
  reason: e.reason,
  createdAt: e.createdAt.toISOString(),
});

const iso = (d: Date | null): string | null => d?.toISOString() ?? null;

/** The task with its attempts; costMicros is a decimal string (a BigInt has no JSON form). */
export function adminTaskView(t: AdminTaskRecord) {
  return {
    id: t.id,
    accountId: t.accountId,
    type: t.type,
    model: t.model,
    params: t.params,
    status: t.status,
    progress: t.progress,
    costCents: t.costCents,
    costMicros: t.costMicros.toString(),
    billedSeconds: t.billedSeconds,
    resultUrls: t.resultUrls,
    errorCode: t.errorCode,
    errorMessage: t.errorMessage,
    retryable: t.retryable,
    channelIndex: t.channelIndex,
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
    startedAt: iso(t.startedAt),
    finishedAt: iso(t.finishedAt),
    deadlineAt: t.deadlineAt.toISOString(),
    effectivePrompt: effectivePromptOf(t),
    promptOptimized: t.promptOptimized,
    promptFallbackReason: t.promptFallbackReason,
    attempts: t.attempts.map((a) => ({
      id: a.id,
      taskId: a.taskId,
      attemptNo: a.attemptNo,
      channelId: a.channelId,
      upstreamId: a.upstreamId,
      status: a.status,
      errorKind: a.errorKind,
      errorMessage: a.errorMessage,
      createdAt: a.createdAt.toISOString(),
      finishedAt: iso(a.finishedAt),
    })),
  };
}
