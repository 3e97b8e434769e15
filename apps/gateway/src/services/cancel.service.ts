// POST /api/{video|image}/tasks/{taskId}/cancel (extension, docs/api.md).
// - Not accepted by any upstream yet: failed with errorCode `cancelled`, refunded, here and now
//   (the same compare-and-set settlement as every failure, so a racing worker cannot also settle).
// - Running upstream: only where the channel's adapter can cancel (workers publish that in the
//   channel registry); the task is marked cancel-requested and its job woken; the worker cancels
//   upstream and settles. This waits briefly for that and answers 200, or 202 while it is under way.
//   A channel that cannot cancel: 409 `not_cancellable`.
// - Finished: 409 `not_cancellable`; already cancelled: the same 200 body again (idempotent).
import { AppError } from '@mediagen/errors';
import { CancelView, findCancelView, isOpenAttempt, requestCancel } from '@mediagen/db';
import { registryKey } from '@mediagen/channel-health';
import { settleFailed } from '@mediagen/settle';
import { wakeRedis, wakeTask } from '@mediagen/queue';
import type { GatewayDeps } from '../deps';
import { settleContext } from './settle';
import { pollBody } from './task-view';

type Row = CancelView;
const load = (deps: GatewayDeps, accountId: string, taskId: string) => findCancelView(deps.db, taskId, accountId);

export interface CancelAnswer {
  status: 200 | 202;
  body: Record<string, unknown>;
}

const answer = (r: Row): CancelAnswer => ({ status: 200, body: { taskId: r.id, ...pollBody(r) } });

export async function cancelTask(deps: GatewayDeps, accountId: string, type: 'video' | 'image', taskId: string): Promise<CancelAnswer> {
  const notFound = new AppError('not_found', `Task ${taskId.slice(0, 200)} not found`);
  if (taskId.length > 200) throw notFound;
  for (let round = 0; round < 3; round++) {
    const r = await load(deps, accountId, taskId);
    if (!r || r.type !== type) throw notFound;
    if (r.status === 'failed' && r.errorCode === 'cancelled') return answer(r);
    if (r.status === 'completed' || r.status === 'failed')
      throw new AppError('not_cancellable', `Task ${taskId} has already finished (${r.status}); only pending or processing tasks can be cancelled`);
    const accepted = r.upstreamId !== null && isOpenAttempt(r.attemptStatus ?? '');
    if (!accepted) {
      // The shared settle path: refund in the same transaction, task event (which drops the shared
      // poll cache entry first), metrics, webhooks.
      const won = await settleFailed(settleContext(deps), taskId, 'cancelled', { cause: 'cancelled by the client before any upstream accepted it' });
      if (!won) continue; // a worker settled it meanwhile: answer from what it became
      deps.log.info({ taskId, accountId }, 'task cancelled before any upstream accepted it');
      return answer((await load(deps, accountId, taskId))!);
    }
    if (!(await channelCanCancel(deps, r.channelId!)))
      throw new AppError('not_cancellable', `Task ${taskId} is rendering on a provider that offers no cancel; it will finish (or fail and be refunded) on its own`);
    return requestUpstreamCancel(deps, accountId, r);
  }
  throw new AppError('service_unavailable', 'The task is changing state; retry shortly');
}

async function requestUpstreamCancel(deps: GatewayDeps, accountId: string, r: Row): Promise<CancelAnswer> {
  const wait = deps.events.waitForSettle(r.id, deps.config.CANCEL_WAIT_MS);
  if (await requestCancel(deps.db, r.id)) {
    // Wake the task's job: promoted when it waits in the delayed set for its next poll, flagged when
    // a step runs right now (that step's end runs the job again at once), as an upstream callback does.
    try {
      await wakeTask(deps.queue, wakeRedis(deps.redis), r.id);
    } catch {
      // Only a nudge: the next scheduled step sees the request anyway.
    }
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
