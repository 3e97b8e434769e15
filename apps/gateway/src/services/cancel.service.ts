// POST /api/{video|image}/tasks/{taskId}/cancel (extension, docs/api.md "Cancel").
// - No submit sent yet: failed with errorCode `cancelled`, refunded, here and now. The task is
//   marked cancel-requested first, which stops every later send (markSubmitSent refuses), and only
//   then is the attempt read again: a send marked before the request is seen, none can follow it.
// - A submit sent (answered with an id or still in flight): the upstream may have accepted it and
//   will bill it, so it is treated as accepted. Where the channel's adapter can cancel (workers
//   publish that in the channel registry), the cancel request stays and the job is woken; the
//   worker cancels upstream once the submit has returned, then settles. This waits briefly for
//   that and answers 200, or 202 while it is under way (a synchronous render that comes back
//   finished completes and stays charged). A channel that cannot cancel: 409 `not_cancellable`.
// - Finished: 409 `not_cancellable`; already cancelled: the same 200 body again (idempotent).
import { AppError } from '@mediagen/errors';
import { CancelView, clearCancelRequest, findCancelView, isOpenAttempt, requestCancel } from '@mediagen/db';
import { wakeRedis, wakeTask } from '@mediagen/queue';
import { registryKey } from '@mediagen/channel-health';
import { settleFailed } from '@mediagen/settle';
import type { GatewayDeps } from '../deps';
import { pollBody } from './task-view';

type Row = CancelView;
const load = (deps: GatewayDeps, accountId: string, taskId: string) => findCancelView(deps.db, taskId, accountId);

export interface CancelAnswer {
  status: 200 | 202;
  body: Record<string, unknown>;
}

const answer = (r: Row): CancelAnswer => ({ status: 200, body: { taskId: r.id, ...pollBody(r) } });

/** The upstream may hold the render: it answered with an id, or our submit request was sent. */
const accepted = (r: Row): boolean =>
  (r.upstreamId !== null && isOpenAttempt(r.attemptStatus ?? '')) || (r.attemptStatus === 'submitting' && r.submitSent);

const notCancellable = (taskId: string) =>
  new AppError('not_cancellable', `Task ${taskId} was sent to a provider that offers no cancel; it will finish and stay charged (or fail and be refunded) on its own`);

export async function cancelTask(deps: GatewayDeps, accountId: string, type: 'video' | 'image', taskId: string): Promise<CancelAnswer> {
  const notFound = new AppError('not_found', `Task ${taskId.slice(0, 200)} not found`);
  if (taskId.length > 200) throw notFound;
  for (let round = 0; round < 3; round++) {
    let r = await load(deps, accountId, taskId);
    if (!r || r.type !== type) throw notFound;
    if (r.status === 'failed' && r.errorCode === 'cancelled') return answer(r);
    if (r.status === 'completed' || r.status === 'failed')
      throw new AppError('not_cancellable', `Task ${taskId} has already finished (${r.status}); only pending or processing tasks can be cancelled`);
    if (!accepted(r)) {
      // From this mark on the worker sends nothing; the read after it is final about what was sent.
      if (!(await requestCancel(deps.db, taskId))) continue; // finished meanwhile
      r = await load(deps, accountId, taskId);
      if (!r) throw notFound;
      if (!accepted(r)) {
        // The shared settle path: refund in the same transaction, task event (which drops the shared
        // poll cache entry first), metrics, webhooks.
        const won = await settleFailed(deps.settleContext, taskId, 'cancelled', { cause: 'cancelled by the client before any upstream accepted it' });
        if (!won) continue; // a worker settled it meanwhile: answer from what it became
        deps.log.info({ taskId, accountId }, 'task cancelled before any upstream accepted it');
        return answer((await load(deps, accountId, taskId))!);
      }
      // A send was marked just before our request: as if it had been seen in the first read.
      if (!(await channelCanCancel(deps, r.channelId!))) {
        await clearCancelRequest(deps.db, taskId);
        throw notCancellable(taskId);
      }
      return requestUpstreamCancel(deps, accountId, r);
    }
    if (!(await channelCanCancel(deps, r.channelId!))) throw notCancellable(taskId);
    return requestUpstreamCancel(deps, accountId, r);
  }
  throw new AppError('service_unavailable', 'The task is changing state; retry shortly');
}

async function requestUpstreamCancel(deps: GatewayDeps, accountId: string, r: Row): Promise<CancelAnswer> {
  const wait = deps.events.waitForSettle(r.id, deps.config.CANCEL_WAIT_MS);
  if (await requestCancel(deps.db, r.id)) {
    // Wake the task's job: promoted when it waits in the delayed set for its next poll, flagged
    // when a step (an in-flight submit) holds it, so its next step comes at once. Only a nudge:
    // the next scheduled step sees the request anyway.
    await wakeTask(deps.queue, wakeRedis(deps.redis), r.id).catch(() => undefined);
  }
  await wait.done;
  const now = await load(deps, accountId, r.id);
  if (now && now.status === 'failed' && now.errorCode === 'cancelled') return answer(now);
  if (now && (now.status === 'completed' || now.status === 'failed'))
    throw new AppError('not_cancellable', `Task ${r.id} finished (${now.status}) before it could be cancelled`);
  return { status: 202, body: { taskId: r.id, ...pollBody(now ?? r), cancelRequested: true } };
}

async function channelCanCancel(deps: GatewayDeps, channelId: string): Promise<boolean> {
  const raw = await deps.redis.hget(registryKey(deps.config.REDIS_PREFIX), channelId).catch(() => null);
  if (!raw) return false;
  try {
    return (JSON.parse(raw) as { cancel?: boolean }).cancel === true;
  } catch {
    return false;
  }
}
