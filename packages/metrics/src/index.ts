// Metric definitions shared by the gateway and the worker: every name is defined once, here.
// Each app builds its own set on its own Registry (see registry.ts) and serves it at GET /metrics.
// Both also take from here who may read /metrics, /stats and /readyz detail (endpoint-access.ts,
// readiness.ts), so the two processes keep one rule.
import type { Registry } from 'prom-client';
import { createRegistry } from './registry';
import { httpMetrics, HttpMetrics } from './http-metrics';
import { gatewayTaskMetrics, GatewayTaskMetrics, workerTaskMetrics, WorkerTaskMetrics } from './task-metrics';
import { channelMetrics, ChannelMetrics } from './channel-metrics';
import { upstreamMetrics, UpstreamMetrics } from './upstream-metrics';
import { storageMetrics, StorageMetrics } from './storage-metrics';
import { optimizerMetrics, OptimizerMetrics } from './optimizer-metrics';

export * from './registry';
export * from './http-metrics';
export * from './task-metrics';
export * from './channel-metrics';
export * from './cluster-gauges';
export * from './upstream-metrics';
export * from './storage-metrics';
export * from './optimizer-metrics';
export * from './endpoint-access';
export * from './readiness';

export interface GatewayMetrics {
  registry: Registry;
  http: HttpMetrics;
  tasks: GatewayTaskMetrics;
}

export interface WorkerMetrics {
  registry: Registry;
  tasks: WorkerTaskMetrics;
  channels: ChannelMetrics;
  upstream: UpstreamMetrics;
  /** Result files stored and deleted, rows the retention job deleted. */
  storage: StorageMetrics;
  optimizer: OptimizerMetrics;
}

export function createGatewayMetrics(opts: { processMetrics?: boolean } = {}): GatewayMetrics {
  const registry = createRegistry('gateway', opts);
  return { registry, http: httpMetrics(registry), tasks: gatewayTaskMetrics(registry) };
}

export function createWorkerMetrics(opts: { processMetrics?: boolean } = {}): WorkerMetrics {
  const registry = createRegistry('worker', opts);
  return { registry, tasks: workerTaskMetrics(registry), channels: channelMetrics(registry), upstream: upstreamMetrics(registry), optimizer: optimizerMetrics(registry), storage: storageMetrics(registry) };
}
