// What upstream renders cost us against what the task earned, and the submit decisions that can
// double a render. "Do I make money on this model": margin = revenue - upstream cost, per model,
// counted when a task completes on an attempt whose upstream reported (or implied) a cost.
import { Counter, Gauge, Registry } from 'prom-client';

export function upstreamMetrics(registry: Registry) {
  return {
    revenueMicros: new Counter({
      name: 'mediagen_model_revenue_micro_usd_total',
      help: 'Charged price of completed tasks whose upstream cost is known, by model (micro-USD)',
      labelNames: ['model'] as const,
      registers: [registry],
    }),
    costMicros: new Counter({
      name: 'mediagen_model_upstream_cost_micro_usd_total',
      help: 'Upstream cost of completed tasks as the upstream reported it, by model and channel (micro-USD)',
      labelNames: ['model', 'channel'] as const,
      registers: [registry],
    }),
    marginMicros: new Gauge({
      name: 'mediagen_model_margin_micro_usd',
      help: 'Revenue minus upstream cost of completed tasks with a known cost since this worker started, by model (micro-USD; negative: the model sells at a loss). Across restarts use increase(revenue) - increase(cost)',
      labelNames: ['model'] as const,
      registers: [registry],
    }),
    usage: new Counter({
      name: 'mediagen_upstream_usage_total',
      help: 'What upstreams reported renders used, by channel and unit (tokens, seconds, ...)',
      labelNames: ['channel', 'units'] as const,
      registers: [registry],
    }),
    resubmits: new Counter({
      name: 'mediagen_upstream_resubmits_total',
      help: 'Submits sent again for an attempt whose earlier submit may have reached the upstream, by channel and how: in_flight (the earlier submit may still be open: nothing sent, the step waits for its deadline), kept (its id, kept in the job data while Postgres was down, written: nothing sent), orphan_found (earlier render adopted, nothing sent), orphan_none (searched, none found: sent again), blind (no search possible: possible double render)',
      labelNames: ['channel', 'how'] as const,
      registers: [registry],
    }),
    extraRenders: new Counter({
      name: 'mediagen_upstream_extra_renders_total',
      help: 'Renders an upstream accepted that no attempt keeps (the attempt already named another render, or was closed meanwhile), by channel and result: cancelled, cancel_failed, not_cancellable (no cancel in the protocol, or the render had already finished)',
      labelNames: ['channel', 'result'] as const,
      registers: [registry],
    }),
    cancels: new Counter({
      name: 'mediagen_upstream_cancels_total',
      help: 'Upstream cancels sent for renders we gave up on (timeout, task settled elsewhere), by channel and result',
      labelNames: ['channel', 'result'] as const,
      registers: [registry],
    }),
  };
}

export type UpstreamMetrics = ReturnType<typeof upstreamMetrics>;
