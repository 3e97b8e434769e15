// The gateway settles a task itself in two cases: its inline files could not be stored after the
// task was committed, and a client cancels a task no upstream has accepted yet. It goes through the same path as the worker's failures
// (@mediagen/settle): same wording, same counters on this gateway's /metrics, same task event.
import { createTaskEventPublisher } from '@mediagen/queue';
import type { SettleContext } from '@mediagen/settle';
import type { GatewayCore } from '../core';

/** The gateway's settle context (built once per deps, in createDeps: one task event publisher). */
export const createSettleContext = (deps: GatewayCore): SettleContext => ({
  db: deps.db,
  log: deps.log,
  metrics: deps.metrics,
  config: deps.config,
  events: createTaskEventPublisher(deps.redis, deps.config.REDIS_PREFIX, deps.log),
  webhookQueue: deps.webhookQueue,
});
