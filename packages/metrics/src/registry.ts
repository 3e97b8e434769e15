// One prom-client Registry per app instance, never the global default: tests build several
// gateways and workers in one process, and each must count only its own traffic.
import { collectDefaultMetrics, Registry } from 'prom-client';

export type AppName = 'gateway' | 'worker';

export function createRegistry(app: AppName, opts: { processMetrics?: boolean } = {}): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ app });
  // Process metrics (CPU, memory, event loop lag, GC) are per process, not per app instance:
  // in-process tests turn them off so several apps do not each start an event-loop monitor.
  if (opts.processMetrics ?? true) collectDefaultMetrics({ register: registry, prefix: 'mediagen_' });
  return registry;
}

/** The scrape answer: Prometheus text format with its content type. */
export async function renderMetrics(registry: Registry): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}
