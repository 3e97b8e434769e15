// Runs the channel check: for each channel and upstream model, the adapter's probe (the cheapest
// request of its protocol that proves the base URL answers, the key is accepted and the model
// exists, without rendering), each cut by its own timeout. A few run at once: a config of many
// channels is checked in seconds, and no upstream sees a burst from us.
import type { ChannelAdapter, ChannelConfig, ModelProbe, ProbeVerdict } from '@mediagen/providers';
import { probeFromError } from '@mediagen/providers';
import { checkTargets } from './check-targets';

export interface CheckResult {
  channel: string;
  protocol: string;
  upstreamModel: string;
  models: string[];
  verdict: ProbeVerdict;
  detail: string;
  httpStatus?: number;
  /** How long the check took, in milliseconds. */
  ms: number;
  /** The channel is `enabled: false` in the config (checked all the same). */
  disabledInConfig?: boolean;
}

export interface CheckOptions {
  /** Each check's deadline (CHANNEL_CHECK_TIMEOUT_MS). */
  timeoutMs: number;
  /** Only these channels (the console's per-channel button). */
  channelIds?: readonly string[];
  /** Checks running at once. */
  concurrency?: number;
}

/** A verdict that needs an operator (everything but ok and skipped). */
export const isProblem = (r: Pick<CheckResult, 'verdict'>) => r.verdict !== 'ok' && r.verdict !== 'skipped';

async function checkOne(adapter: ChannelAdapter | undefined, upstreamModel: string, timeoutMs: number): Promise<ModelProbe> {
  if (!adapter?.probeModel) return { verdict: 'skipped', detail: 'this protocol has no check' };
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  // The signal stops the request; the race stops the wait even if a probe ignored the signal.
  const deadline = new Promise<ModelProbe>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve({ verdict: 'unreachable', detail: `no answer within ${timeoutMs} ms` });
    }, timeoutMs);
  });
  try {
    return await Promise.race([adapter.probeModel(upstreamModel, controller.signal).catch((err: unknown) => probeFromError(err)), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

export async function runChannelChecks(config: ChannelConfig, adapters: ReadonlyMap<string, ChannelAdapter>, opts: CheckOptions): Promise<CheckResult[]> {
  const targets = checkTargets(config, opts.channelIds);
  const results: CheckResult[] = new Array(targets.length);
  let next = 0;
  const worker = async () => {
    while (next < targets.length) {
      const i = next++;
      const t = targets[i];
      const start = performance.now();
      const p = await checkOne(adapters.get(t.channel.id), t.upstreamModel, opts.timeoutMs);
      results[i] = {
        channel: t.channel.id, protocol: t.channel.protocol, upstreamModel: t.upstreamModel, models: t.models,
        verdict: p.verdict, detail: p.detail, ...(p.httpStatus ? { httpStatus: p.httpStatus } : {}),
        ms: Math.round(performance.now() - start),
        ...(t.channel.enabled ? {} : { disabledInConfig: true }),
      };
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.concurrency ?? 4, targets.length)) }, worker));
  return results;
}
