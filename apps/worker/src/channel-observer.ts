// Wraps each channel adapter so every upstream call is timed and its outcome counted, once, for
// both the metrics (per-channel outcomes and latency) and the shared circuit breaker. The steps in
// attempt-steps.ts keep calling the adapter as before and never see the difference.
import type { Logger } from 'pino';
import type { ChannelHealth, Outcome } from '@mediagen/channel-health';
import type { ChannelCall, WorkerMetrics } from '@mediagen/metrics';
import type { ChannelAdapter, UpstreamError } from '@mediagen/providers';

export interface ObserverDeps {
  metrics: WorkerMetrics;
  health: ChannelHealth;
  log: Logger;
}

export function observeChannel(inner: ChannelAdapter, deps: ObserverDeps): ChannelAdapter {
  const channel = inner.channel.id;
  const { metrics, health, log } = deps;

  const outcome = async (o: Outcome, message?: string) => {
    metrics.channels.outcomes.inc({ channel, outcome: o });
    try {
      const moved = await health.record(channel, o, message);
      if (moved) {
        metrics.channels.breakerTransitions.inc({ channel, state: moved });
        log.warn({ channel, state: moved, outcome: o, err: message }, moved === 'open' ? 'channel taken out of rotation' : `channel breaker ${moved}`);
      }
    } catch (err) {
      // Bookkeeping only: a Redis hiccup must not fail the step that made the call.
      log.warn({ channel, err: (err as Error).message }, 'channel outcome not recorded');
    }
  };

  /** Times one call; a thrown error is classified (as the step will), counted, and rethrown unchanged. */
  async function timed<T>(call: ChannelCall, action: string, fn: () => Promise<T>): Promise<T> {
    const start = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - start) / 1e9;
    try {
      const value = await fn();
      metrics.channels.calls.observe({ channel, call, result: 'ok' }, seconds());
      return value;
    } catch (e) {
      const err: UpstreamError = inner.classifyError(e, action);
      metrics.channels.calls.observe({ channel, call, result: err.kind }, seconds());
      await outcome(err.kind, err.message);
      throw e;
    }
  }

  // Capabilities and cancel() pass through unchanged (cancel is rare; not timed).
  const extra = inner as ChannelAdapter & { capabilities?: unknown; cancel?: (id: string) => Promise<void> };
  return {
    ...(extra.capabilities !== undefined ? { capabilities: extra.capabilities } : {}),
    ...(typeof extra.cancel === 'function' ? { cancel: (id: string) => extra.cancel!(id) } : {}),
    channel: inner.channel,
    submit: (req, key) => timed('submit', 'submit', () => inner.submit(req, key)),
    async poll(upstreamId) {
      const status = await timed('poll', 'status', () => inner.poll(upstreamId));
      if (status.state === 'succeeded') await outcome('succeeded');
      else if (status.state === 'failed') await outcome(status.error.kind, status.error.message);
      return status;
    },
    fetchResult: (ref) => timed('download', 'download', () => inner.fetchResult(ref)),
    classifyError: (err, action) => inner.classifyError(err, action),
    close: () => inner.close(),
  };
}
