// Re-send of one webhook delivery, shared by the admin API and the console: the delivery is reset
// to pending and its job queued again (a finished job would keep the jobId taken; a live, delayed
// one is woken instead). false for an unknown delivery.
import { enqueueDelivery } from '@mediagen/queue';
import { resetDeliveryForResend } from '@mediagen/db';
import type { GatewayDeps } from '../deps';

export async function resendDelivery(deps: Pick<GatewayDeps, 'db' | 'webhookQueue'>, id: string): Promise<boolean> {
  if (!(await resetDeliveryForResend(deps.db, id))) return false;
  const job = await deps.webhookQueue.getJob(id);
  if (job && (await job.isDelayed())) await job.promote().catch(() => undefined);
  else if (job && ((await job.isCompleted()) || (await job.isFailed()))) await job.remove().catch(() => undefined);
  await enqueueDelivery(deps.webhookQueue, id);
  return true;
}
