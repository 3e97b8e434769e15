// Wraps each channel adapter so every upstream call is timed and its outcome counted, once, for
// both the metrics (per-channel outcomes and latency) and the shared circuit breaker. The steps in
// attempt-steps.ts keep calling the adapter as before and never see the difference.
import type { Logger } from 'pino';
import type { ChannelHealth, Outcome } from '@mediagen/channel-health';
import type { ChannelCall, WorkerMetrics } from '@mediagen/metrics';
import type { ChannelAdapter, UpstreamError, UpstreamErrorKind } from '@mediagen/providers';
import { currentStepScope } from './step-scope';
import type { DownloadTimer } from './context';

/**
 * A lost render counts against the channel like a failed one (the breaker knows no 'lost'); an
 * unreachable upstream (a submit not sent) like a transient failure. An unknown model is about one
 * model, not the channel: counted in the metrics only; the worker records it with the upstream
 * model named (unknown-model.ts).
 */
const asOutcome = (kind: UpstreamErrorKind): Outcome => (kind === 'lost' ? 'failed' : kind === 'unsent' ? 'transient' : kind);

/**
 * Runs one result download of `adapter`'s channel timed and counted like the adapter's own calls
 * (call="download"), with the channel's timer from the worker's context (downloads go through
 * download.ts, not the adapter); untimed when the channel has none.
 */
export function observedDownload<T>(timers: ReadonlyMap<string, DownloadTimer>, adapter: ChannelAdapter, fn: () => Promise<T>): Promise<T> {
  const timer = timers.get(adapter.channel.id);
  return timer ? timer(fn) : fn();
}

/** An adapter whose calls are timed and counted, and the timer of its channel's result downloads. */
export interface ObservedChannel {
  adapter: ChannelAdapter;
  download: DownloadTimer;
}

export interface ObserverDeps {
  metrics: WorkerMetrics;
  health: ChannelHealth;
  log: Logger;
}

export function observeChannel(inner: ChannelAdapter, deps: ObserverDeps): ObservedChannel {
  const channel = inner.channel.id;
  const { metrics, health, log } = deps;

  const outcome = async (o: Outcome, message?: string) => {
    metrics.channels.outcomes.inc({ channel, outcome: o });
    if (o === 'unknown_model') return;
    try {
      // Whose task met it: the breaker counts one account's failed renders once (breaker.ts).
      const scope = currentStepScope();
      const moved = await health.record(channel, o, message, scope?.accountId ?? scope?.taskId);
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
  async function timed<T>(call: ChannelCall, action: 'submit' | 'status' | 'download' | 'cancel', fn: () => Promise<T>): Promise<T> {
    const start = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - start) / 1e9;
    try {
      const value = await fn();
      metrics.channels.calls.observe({ channel, call, result: 'ok' }, seconds());
      return value;
    } catch (e) {
      const err: UpstreamError = inner.classifyError(e, action);
      metrics.channels.calls.observe({ channel, call, result: err.kind }, seconds());
      await outcome(asOutcome(err.kind), err.message);
      throw e;
    }
  }

  /**
   * A render's outcome, counted. A failure is counted before the step goes on: the step may pick
   * the next channel at once, and the breaker must have seen this one first. A success is counted
   * beside the step, which goes straight on to download the result: nothing the step decides
   * depends on it, and waiting for the round trip held every finished render back by one (time to
   * result). It is sent on the context's command connection, which also publishes the task's
   * completion afterwards, so Redis has applied it before any client hears of the task.
   */
  const finished = async <S extends { state: string; error?: UpstreamError } | undefined>(status: S): Promise<S> => {
    if (status?.state === 'succeeded') void outcome('succeeded');
    else if (status?.state === 'failed' && status.error) await outcome(asOutcome(status.error.kind), status.error.message);
    return status;
  };

  const observed: ChannelAdapter = {
    channel: inner.channel,
    capabilities: inner.capabilities,
    unsupported: inner.unsupported?.bind(inner),
    coverage: inner.coverage?.bind(inner),
    upstreamModel: inner.upstreamModel?.bind(inner),
    probeModel: inner.probeModel?.bind(inner),
    async submit(req) {
      const res = await timed('submit', 'submit', () => inner.submit(req));
      // Synchronous upstreams finish inside the submit: count the render's outcome there.
      await finished(res.status);
      return res;
    },
    submitDeadlineMs: inner.submitDeadlineMs?.bind(inner),
    poll: async (upstreamId, render) => finished(await timed('poll', 'status', () => inner.poll(upstreamId, render))),
    cancel: inner.cancel && ((upstreamId) => timed('cancel', 'cancel', () => inner.cancel!(upstreamId))),
    findOrphan: inner.findOrphan && ((req) => timed('submit', 'submit', () => inner.findOrphan!(req))),
    verifyCallback: inner.verifyCallback?.bind(inner),
    classifyError: (err, action) => inner.classifyError(err, action),
    close: () => inner.close(),
  };
  return { adapter: observed, download: (fn) => timed('download', 'download', fn) };
}
