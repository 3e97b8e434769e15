// The poll body of a task (GET /api/{video|image}/tasks/{taskId}: completed, processing or failed
// fields by status), from its row. Shared by the gateway's poll and listing and by
// the webhook events (packages/webhooks), whose `data` is this body plus taskId and model.
import type { TaskStatusName } from './task-vocabulary';

export interface TaskBodyRow {
  type: 'video' | 'image';
  status: TaskStatusName;
  progress: number;
  resultUrls: string[];
  errorCode: string | null;
  errorMessage: string | null;
  retryable: boolean | null;
  /** When the result files are deleted (completed tasks; null keeps them forever). */
  expiresAt: Date | null;
}

/** Poll body: completed (status, resultUrls, type); processing (status, progress, type); failed (...). */
export function pollBody(t: TaskBodyRow): Record<string, unknown> {
  switch (t.status) {
    case 'completed':
      // Extension (docs/api.md): when the result URLs stop answering; absent when kept forever.
      return t.expiresAt ? { status: t.status, resultUrls: t.resultUrls, type: t.type, expiresAt: t.expiresAt.toISOString() } : { status: t.status, resultUrls: t.resultUrls, type: t.type };
    case 'processing':
      return { status: t.status, progress: t.progress, type: t.type };
    case 'failed':
      return { status: t.status, errorMessage: t.errorMessage, errorCode: t.errorCode, retryable: t.retryable, type: t.type };
    default:
      return { status: t.status, type: t.type };
  }
}
