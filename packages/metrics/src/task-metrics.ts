// Task lifecycle counters. Created is counted by the gateway (the charge committed); completed,
// failed and refunded by the process that won the settlement (a worker; the gateway for a task
// whose inline files it could not store), so each task counts once cluster-wide.
import { Counter, Registry } from 'prom-client';

/** The counters @mediagen/settle moves, in whichever process settles the task. */
export function settlementMetrics(registry: Registry) {
  return {
    completed: new Counter({
      name: 'mediagen_tasks_completed_total',
      help: 'Tasks completed with stored results, by model',
      labelNames: ['model'] as const,
      registers: [registry],
    }),
    failed: new Counter({
      name: 'mediagen_tasks_failed_total',
      help: 'Tasks failed, by model and errorCode',
      labelNames: ['model', 'error_code'] as const,
      registers: [registry],
    }),
    refunds: new Counter({
      name: 'mediagen_refunds_total',
      help: 'Refunds written (one per failed task), by model and errorCode',
      labelNames: ['model', 'error_code'] as const,
      registers: [registry],
    }),
    refundedCents: new Counter({
      name: 'mediagen_refunded_cents_total',
      help: 'Cents refunded to accounts, by model',
      labelNames: ['model'] as const,
      registers: [registry],
    }),
  };
}

export function gatewayTaskMetrics(registry: Registry) {
  return {
    created: new Counter({
      name: 'mediagen_tasks_created_total',
      help: 'Tasks created and charged, by model (idempotent replays are not counted)',
      labelNames: ['model'] as const,
      registers: [registry],
    }),
    ...settlementMetrics(registry),
  };
}

export function workerTaskMetrics(registry: Registry) {
  return {
    ...settlementMetrics(registry),
    steps: new Counter({
      name: 'mediagen_task_steps_total',
      help: 'Task job steps run by this worker (submit, poll, download; not renders)',
      registers: [registry],
    }),
  };
}

export type SettlementMetrics = ReturnType<typeof settlementMetrics>;
export type GatewayTaskMetrics = ReturnType<typeof gatewayTaskMetrics>;
export type WorkerTaskMetrics = ReturnType<typeof workerTaskMetrics>;
