// What the worker sees of each upstream channel: the outcome of every call and how long it took.
// These are the same outcomes the channel circuit breaker counts (@mediagen/channel-health).
import { Counter, Histogram, Registry } from 'prom-client';

/** succeeded: a render finished; failed: refused or failed render; transient: timeout, 429, 5xx. */
export type ChannelOutcome = 'succeeded' | 'failed' | 'transient' | 'violation' | 'unusable' | 'unknown_model';
export type ChannelCall = 'submit' | 'poll' | 'download' | 'cancel';

export function channelMetrics(registry: Registry) {
  return {
    outcomes: new Counter({
      name: 'mediagen_channel_outcomes_total',
      help: 'Upstream outcomes per channel: succeeded (render done), failed, transient, violation, unusable, unknown_model',
      labelNames: ['channel', 'outcome'] as const,
      registers: [registry],
    }),
    calls: new Histogram({
      name: 'mediagen_channel_call_duration_seconds',
      help: 'Upstream call latency per channel and call (submit, poll, download headers), by result (ok or the error kind)',
      labelNames: ['channel', 'call', 'result'] as const,
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    }),
    modelUnavailable: new Counter({
      name: 'mediagen_channel_model_unavailable_total',
      help: 'Upstream answers meaning the model does not exist or is no longer available, by channel and upstream model (the channel stops being tried for that model)',
      labelNames: ['channel', 'upstream_model'] as const,
      registers: [registry],
    }),
    breakerTransitions: new Counter({
      name: 'mediagen_channel_breaker_transitions_total',
      help: 'Circuit breaker moves made by this worker, by channel and new state (open, half-open, closed)',
      labelNames: ['channel', 'state'] as const,
      registers: [registry],
    }),
  };
}

export type ChannelMetrics = ReturnType<typeof channelMetrics>;
