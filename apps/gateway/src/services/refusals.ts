// 402 and 429 bodies/headers for a submit the billing transaction refused.
import { AppError } from '@mediagen/errors';
import type { SubmitRefused } from '@mediagen/db';

/** Seconds a client at the in-progress limit should wait: about one advised poll interval. */
const IN_PROGRESS_RETRY_AFTER_S = 10;

export function refusalError(e: SubmitRefused, costCents: number, topUpUrl: string): AppError {
  if (e.reason === 'insufficient_balance') {
    return new AppError('insufficient_balance', `Insufficient balance: this task costs ${costCents} cents, the balance is ${e.balanceCents} cents`, undefined, {
      costCents,
      balanceCents: e.balanceCents,
      topUpUrl,
    });
  }
  if (e.reason === 'too_many_tasks') {
    return new AppError(
      'too_many_tasks',
      `Too many tasks in progress (maximum ${e.maxConcurrentTasks}); retry when one finishes`,
      undefined,
      { maxConcurrentTasks: e.maxConcurrentTasks, tasksInProgress: e.tasksInProgress },
      {
        // IETF RateLimit fields draft; qu="concurrent-requests" marks a concurrency quota.
        'RateLimit-Policy': `"in-progress"; q=${e.maxConcurrentTasks}; qu="concurrent-requests"`,
        RateLimit: `"in-progress"; r=0; t=${IN_PROGRESS_RETRY_AFTER_S}`,
        'Retry-After': String(IN_PROGRESS_RETRY_AFTER_S),
      },
    );
  }
  return new AppError('unauthorized', 'The account of this API key no longer exists');
}
