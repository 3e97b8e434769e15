// MiniMax v2 task answers as our RenderStatus (pure). Statuses (providers.md §5): queued, running,
// succeeded, failed, cancelled, expired; the v1 names (Preparing, Queueing, Processing, Success,
// Fail) are read too, case-insensitively.
import type { RenderStatus, UpstreamUsage } from '../channel-adapter';
import { UpstreamError, unknownAnswer } from '../upstream-error';
import { classifyMinimaxSignal } from './minimax-errors';
import type { MinimaxTask } from './minimax-schemas';

/** Where the finished video is: a URL, a file to retrieve (v1 style), or nothing. */
export type MinimaxResult = { url: string } | { fileId: string } | null;

export function minimaxResult(task: MinimaxTask): MinimaxResult {
  if (task.content?.url) return { url: task.content.url };
  const fileId = task.content?.file_id ?? task.file_id;
  return fileId ? { fileId } : null;
}

export function minimaxUsage(task: MinimaxTask, prices?: Record<string, Record<string, number>>): UpstreamUsage | undefined {
  const s = task.usage?.output_seconds;
  if (typeof s !== 'number') return undefined;
  const perSecond = task.model && task.resolution ? prices?.[task.model]?.[task.resolution] : undefined;
  return perSecond === undefined ? { units: 'seconds', amount: s } : { units: 'seconds', amount: s, costMicroUsd: Math.round(s * perSecond) };
}

/** The status of everything but a success, whose file the adapter may still have to look up. */
export function minimaxStatus(task: MinimaxTask, reportsViolations: boolean): RenderStatus | 'succeeded' {
  switch (task.status.toLowerCase()) {
    case 'queued':
    case 'queueing':
    case 'preparing':
      return { state: 'running', progress: 0 };
    case 'running':
    case 'processing':
      return { state: 'running', progress: 50 };
    case 'succeeded':
    case 'success':
      return 'succeeded';
    case 'failed':
    case 'fail': {
      const error = classifyMinimaxSignal(
        { code: task.error?.code ?? undefined, message: task.error?.message ?? 'render failed' },
        { reportsViolations, action: 'status' },
      );
      // A failed task is final: whatever its code, only a new render (elsewhere) can help.
      return { state: 'failed', error: error.kind === 'violation' ? error : new UpstreamError('failed', `render failed: ${error.message}`) };
    }
    case 'cancelled':
    case 'canceled':
      return { state: 'failed', error: new UpstreamError('failed', 'render cancelled upstream') };
    case 'expired':
      return { state: 'failed', error: new UpstreamError('failed', 'render expired upstream') };
    case 'deleted':
      return { state: 'failed', error: new UpstreamError('lost', 'the upstream deleted this task') };
    default:
      throw unknownAnswer(`status: unexpected task status ${JSON.stringify(task.status)}`);
  }
}
