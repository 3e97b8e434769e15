// POST /hooks/upstream/{channelId}: an upstream says a render moved. A callback is a hint that
// wakes the task's job at once (the job then reads the upstream's state itself through the
// adapter); it is never taken as the task's outcome. What makes it believable depends on the
// channel's protocol (adapter capabilities.callbacks):
// - 'signed' (fal ED25519, Replicate Standard Webhooks): adapter.verifyCallback must verify it; the
//   render it names leads to the task (or the per-task token in the URL, when it also verifies).
// - 'hint' (ModelArk signs nothing): only the per-task token we put in the URL proves it came
//   from the upstream we gave the URL to.
// - 'none': the channel takes no callbacks.
// Anything else is answered 4xx with the error body and changes nothing. A believable callback that
// says the render finished with files passes their URLs on with the wake (the job's `claim`): the
// worker starts their downloads beside the status read that decides (apps/worker early-status.ts).
// A claim that is not plain http(s) URLs within bounds is left out; the wake goes on without it.
import { taskOfUpstreamRender } from '@mediagen/db';
import { AppError } from '@mediagen/errors';
import { callbackSecret, CallbackInput, type CallbackVerdict, verifyCallbackToken } from '@mediagen/providers';
import { type CallbackClaim, callbackClaimSchema, wakeRedis, wakeTask } from '@mediagen/queue';
import type { GatewayDeps } from '../deps';

export interface CallbackOutcome {
  taskId: string;
  /** Whether the task's job was waiting and was moved to run now. */
  woken: boolean;
}

export async function acceptUpstreamCallback(deps: GatewayDeps, channelId: string, input: CallbackInput): Promise<CallbackOutcome> {
  const adapter = deps.adapters.get(channelId);
  if (!adapter) throw new AppError('not_found', `No channel ${channelId}.`);
  const mode = adapter.capabilities.callbacks;
  if (mode === 'none') throw new AppError('not_found', `Channel ${channelId} takes no callbacks.`);
  const claimedTask = input.query.task;
  const tokenOk = !!claimedTask && verifyCallbackToken(callbackSecret(deps.config), channelId, claimedTask, input.query.token);

  let verified: CallbackVerdict | null = null;
  if (adapter.verifyCallback) {
    try {
      verified = await adapter.verifyCallback(input);
    } catch {
      verified = null;
    }
  }
  let taskId: string | null = null;
  if (mode === 'signed') {
    if (!verified) throw new AppError('unauthorized', 'The callback signature does not verify.');
    taskId = tokenOk ? claimedTask! : await taskOfUpstreamRender(deps.db, channelId, verified.upstreamId);
  } else {
    if (!tokenOk) throw new AppError('unauthorized', 'The callback token does not verify.');
    taskId = claimedTask!;
  }
  if (!taskId) throw new AppError('not_found', 'No task has this render.');
  const woken = await wakeTask(deps.queue, wakeRedis(deps.redis), taskId, claimOf(verified));
  deps.log.info({ channel: channelId, taskId, upstreamId: verified?.upstreamId, woken }, 'upstream callback');
  return { taskId, woken };
}

const claimOf = (verified: CallbackVerdict | null): CallbackClaim | undefined => {
  if (!verified?.resultUrls?.length) return undefined;
  const claim = callbackClaimSchema.safeParse({ upstreamId: verified.upstreamId, urls: verified.resultUrls });
  return claim.success ? claim.data : undefined;
};
