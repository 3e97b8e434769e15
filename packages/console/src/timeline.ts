// A task's life as the console shows it, oldest first: submitted, charged, each attempt (channel,
// upstream id, outcome, duration), result files, failure, refund.
import type { AdminTaskRecord, TaskLedgerRow } from '@mediagen/db';

export interface TimelineEvent {
  at: Date;
  kind: 'submitted' | 'charged' | 'attempt' | 'completed' | 'failed' | 'refunded';
  title: string;
  detail: string | null;
  attempt?: AdminTaskRecord['attempts'][number];
}

export function taskTimeline(task: AdminTaskRecord, ledger: TaskLedgerRow[]): TimelineEvent[] {
  const ev: TimelineEvent[] = [{ at: task.createdAt, kind: 'submitted', title: `Submitted (${task.type}, ${task.model})`, detail: null }];
  for (const l of ledger) {
    if (l.kind === 'charge') ev.push({ at: l.createdAt, kind: 'charged', title: `Charged ${(-l.amountCents / 100).toFixed(2)} USD`, detail: l.reason });
    if (l.kind === 'refund') ev.push({ at: l.createdAt, kind: 'refunded', title: `Refunded ${(l.amountCents / 100).toFixed(2)} USD`, detail: l.reason });
  }
  for (const a of task.attempts) {
    ev.push({ at: a.createdAt, kind: 'attempt', title: `Attempt ${a.attemptNo} on ${a.channelId}: ${a.status}`, detail: a.errorMessage, attempt: a });
  }
  if (task.status === 'completed' && task.finishedAt) ev.push({ at: task.finishedAt, kind: 'completed', title: `Completed with ${task.resultUrls.length} file(s)`, detail: null });
  if (task.status === 'failed' && task.finishedAt) ev.push({ at: task.finishedAt, kind: 'failed', title: `Failed: ${task.errorCode ?? 'unknown'}`, detail: task.errorMessage });
  const order: Record<TimelineEvent['kind'], number> = { submitted: 0, charged: 1, attempt: 2, completed: 3, failed: 3, refunded: 4 };
  return ev.sort((a, b) => a.at.getTime() - b.at.getTime() || order[a.kind] - order[b.kind]);
}
