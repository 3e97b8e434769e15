// A poll step's status read, started beside loadTask. The job's data names the running attempt the
// step will read (its hint, written by the step before); the read of that render goes out at once
// instead of after the task's row comes back, one Postgres round trip earlier (time to result
// after an upstream callback). The rows stay the truth: the answer is used only by the poll step
// of that very attempt, which runs only past advanceTask's checks (task open, not cancelled, before
// its deadline, prompt decided) and only when the loaded attempt is the hinted one, running, on the
// same channel with the same upstream id. Otherwise it is dropped, its failure with it, and the
// step goes on as without a hint.
//
// When an upstream callback promoted the job and said which files the render finished with (the
// job's `claim`, written by the gateway), their downloads start here too, beside the status read
// instead of after it (its answer names the files; one upstream round trip earlier). The claim
// decides nothing: the step keeps a claimed download only when the status read it acts on names
// that very URL (collect, attempt-steps.ts); every other one is closed unread at the step's end
// (releaseClaimed). A claimed download that failed is not counted against the channel (a claim
// made before the file was ready is no outage): the step downloads the file again as usual.
import { capOutputs, openResult, type OpenedResult, type ResultRef } from '@mediagen/providers';
import type { RunTaskPayload } from '@mediagen/queue';
import type { Attempt } from '@mediagen/db';
import type { WorkerContext } from './context';
import { currentStepScope } from './step-scope';
import type { ClaimedDownloads, EarlyStatus, TaskRun } from './task-run';

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
  return { hint, status, claimed: startClaimed(ctx, payload, adapter.channel.timeouts.downloadMs) };
}

/**
 * The claimed files' downloads (headers checked, first bytes sniffed, body not read), by URL; only
 * for a claim about the hinted render, of a task whose type the hint names (what the bytes are
 * checked against). One deadline for them all, the channel's download deadline, as collect's.
 */
function startClaimed(ctx: WorkerContext, payload: RunTaskPayload, downloadMs: number): ClaimedDownloads | undefined {
  const { claim, poll: hint } = payload;
  if (!claim || !hint?.type || claim.upstreamId !== hint.upstreamId) return undefined;
  const signal = AbortSignal.timeout(downloadMs);
  const refs: ResultRef[] = claim.urls.map((url) => ({ kind: 'url', url }));
  const claimed: ClaimedDownloads = new Map();
  for (const ref of capOutputs(refs, hint.type)) {
    if (ref.kind !== 'url' || claimed.has(ref.url)) continue;
    const open = openResult(ref, hint.type, ctx.download, signal);
    open.catch(() => undefined); // taken by collect (a failure means: download again), or closed unread
    claimed.set(ref.url, open);
  }
  ctx.stats.claimedDownloads += claimed.size;
  return claimed;
}

/**
 * The claimed download of `ref`, taken (a step uses each once), when the callback claimed the same
 * URL the status read names, with no headers of the adapter's to send (a claim never carries any);
 * null when there is none or it failed (the caller downloads as usual).
 */
export async function takeClaimed(claimed: ClaimedDownloads | undefined, ref: ResultRef): Promise<OpenedResult | null> {
  if (!claimed || ref.kind !== 'url' || ref.headers) return null;
  const open = claimed.get(ref.url);
  if (!open) return null;
  claimed.delete(ref.url);
  return open.catch(() => null);
}

/** Closes the claimed downloads no step took (an unread body holds its socket until the deadline). */
export function releaseClaimed(early: EarlyStatus | undefined): void {
  if (!early?.claimed) return;
  for (const open of early.claimed.values()) open.then((o) => o.body.close(), () => undefined);
  early.claimed.clear();
}

/**
 * The early read (its answer and any claimed downloads) when the loaded `attempt` is the one it
 * read (then taken: one step uses it once), else undefined and the read is dropped (the claimed
 * downloads are closed at the step's end, releaseClaimed).
 */
export function takeEarlyStatus(run: TaskRun, attempt: Attempt): EarlyStatus | undefined {
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
  return same ? early : undefined;
}
