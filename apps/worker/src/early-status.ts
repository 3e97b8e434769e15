// A poll step's status read, started beside loadTask. The job's data names the running attempt the
// step will read (its hint, written by the step before); the read of that render goes out at once
// instead of after the task's row comes back, one Postgres round trip earlier (time to result
// after an upstream callback). The rows stay the truth: the answer is used only by the poll step
// of that very attempt, which runs only past advanceTask's checks (task open, not cancelled, before
// its deadline, prompt decided) and only when the loaded attempt is the hinted one, running, on the
// same channel with the same upstream id. Otherwise it is dropped, its failure with it, and the
// step goes on as without a hint.
import type { RunTaskPayload } from '@mediagen/queue';
import type { Attempt } from '@mediagen/db';
import type { WorkerContext } from './context';
import { currentStepScope } from './step-scope';
import type { EarlyStatus, TaskRun } from './task-run';

/**
 * Starts the status read of the hinted render, or undefined when this step may not read early:
 * - not a poll step, or no hint (a job written before hints, or not waiting for a render);
 * - a render id kept in the job's data (the row is rewritten first; the hint may be stale);
 * - the channel is gone, or limits its status calls per second (`poll.maxPerSecond`): every read
 *   there takes its share of the limit by the poll schedule, and a read whose answer may be dropped
 *   would spend it twice;
 * - the adapter prices the answer from the render asked for (`pollUsesRender`: fal, Gemini), which
 *   only the task's stored params say; read before they are loaded, its usage would be priced
 *   without them, so it is read after loadTask as always.
 * A read started counts as a poll (stats, and the channel's call metrics and breaker through the
 * observed adapter), used or not: it did reach the upstream.
 */
export function startEarlyStatus(ctx: WorkerContext, payload: RunTaskPayload): EarlyStatus | undefined {
  const hint = payload.poll;
  if (payload.step !== 'poll' || !hint || payload.render) return undefined;
  const adapter = ctx.adapters.get(hint.channelId);
  if (!adapter || adapter.channel.poll.maxPerSecond || adapter.capabilities.pollUsesRender !== false) return undefined;
  // The channel observer attributes the read's outcome to the task's account (the breaker counts
  // one account's failed renders once); it may come back before loadTask has named the account.
  const scope = currentStepScope();
  if (scope && !scope.accountId) scope.accountId = hint.accountId;
  ctx.stats.polls += 1;
  const status = adapter.poll(hint.upstreamId);
  status.catch(() => undefined); // awaited by the poll step that takes it, or dropped
  return { hint, status };
}

/**
 * The early read's answer when the loaded `attempt` is the one it read (then taken: one step uses
 * it once), else undefined and the read is dropped.
 */
export function takeEarlyStatus(run: TaskRun, attempt: Attempt): EarlyStatus['status'] | undefined {
  const early = run.early;
  run.early = undefined;
  if (!early) return undefined;
  const { hint } = early;
  const same =
    attempt.status === 'running' &&
    attempt.id === hint.attemptId &&
    attempt.channelId === hint.channelId &&
    attempt.upstreamId === hint.upstreamId &&
    run.task.accountId === hint.accountId;
  return same ? early.status : undefined;
}
