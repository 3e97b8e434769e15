// Bull Board at /admin/queues (behind the admin token, applied by the caller), showing every queue.
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { Queue } from 'bullmq';
import type { Router } from 'express';
import { QUEUES } from '@mediagen/queue';
import type { GatewayDeps } from '../deps';

export function bullBoardRouter(deps: GatewayDeps): Router {
  const adapter = new ExpressAdapter();
  adapter.setBasePath('/admin/queues');
  const queues = Object.values(QUEUES).map((name) =>
    name === deps.queue.name ? deps.queue : new Queue(name, { connection: deps.redis, prefix: deps.config.REDIS_PREFIX }),
  );
  // bull-board bundles its own express typings; the adapter is structurally the same.
  createBullBoard({ queues: queues.map((q) => new BullMQAdapter(q)), serverAdapter: adapter as never });
  return adapter.getRouter() as Router;
}
