// POST /hooks/upstream/{channelId}: an upstream says a render moved. A callback is a hint that
// wakes the task's job at once (the job then reads the upstream's state itself through the
// adapter); it is never taken as the task's outcome. What makes it believable depends on the
// channel's protocol (adapter capabilities.callbacks):
// - 'signed' (fal ED25519, Replicate Standard Webhooks): adapter.verifyCallback must verify it; the
//   render it names leads to the task (or the per-task token in the URL, when it also verifies).
// - 'hint' (ModelArk signs nothing): only the per-task token we put in the URL proves it came
//   from the upstream we gave the URL to.
// - 'none': the channel takes no callbacks.
// Anything else is answered 4xx with the error body and changes nothing.
import { taskOfUpstreamRender } from '@mediagen/db';
import { AppError } from '@mediagen/errors';
import { callbackSecret, CallbackInput, verifyCallbackToken } from '@mediagen/providers';
import { wakeRedis, wakeTask } from '@mediagen/queue';
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

  let verified: { upstreamId: string } | null = null;
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
  const woken = await wakeTask(deps.queue, wakeRedis(deps.redis), taskId);
  deps.log.info({ channel: channelId, taskId, upstreamId: verified?.upstreamId, woken }, 'upstream callback');
  return { taskId, woken };
}
