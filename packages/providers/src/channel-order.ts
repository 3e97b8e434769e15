// Which channels may run a task, in the order they are tried.
import type { TaskSpec } from '@mediagen/catalog';
import type { ChannelAdapter } from './channel-adapter';
import { Channel, ChannelConfig, upstreamModelFor } from './channel-config';
import { channelCoverage, coverageGap } from './coverage';

export type RequestedTier = 'official' | 'third-party' | null;

/**
 * `third-party` is the low-cost channel, so only third-party channels run it; with
 * `official` "a cheaper channel of the same model is tried first and a failed render is retried on
 * the next channel", so every channel of the model is eligible, cheapest first. Models without
 * tiers use every channel that serves them, cheapest first.
 */
export function channelsFor(config: ChannelConfig, model: string, tier: RequestedTier, variant: string | null = null): Channel[] {
  return config.channels
    .filter((c) => c.enabled && servesModel(c, model, variant))
    .filter((c) => tier !== 'third-party' || c.tier === 'third-party')
    .sort((a, b) => a.costOrder - b.costOrder || a.id.localeCompare(b.id));
}

/** Models of the catalog that no channel serves: reported at worker start, not per task. */
export function unservedModels(config: ChannelConfig, models: readonly string[]): string[] {
  return models.filter((m) => channelsFor(config, m, null).length === 0);
}

/**
 * Whether the channel maps this model (or, for video-c-3.1, this variant). Without a variant, any
 * key of the model's family counts (`video-c-3.1-pro` serves `video-c-3.1` for that variant).
 */
export function servesModel(channel: Pick<Channel, 'models'>, model: string, variant: string | null): boolean {
  if (upstreamModelFor(channel, model, variant) !== undefined) return true;
  return variant === null && Object.keys(channel.models).some((k) => k.startsWith(`${model}-`));
}

/**
 * The channels of `order` able to render this task's options (coverage.ts), in the same order, and
 * why each other one cannot. A channel that serves part of a model takes only the tasks it can render.
 */
export function ableToRender<C extends Channel>(
  order: readonly C[],
  adapters: ReadonlyMap<string, ChannelAdapter>,
  spec: TaskSpec,
  outputSeconds: number | null,
): { able: C[]; unable: { id: string; why: string }[] } {
  const able: C[] = [];
  const unable: { id: string; why: string }[] = [];
  for (const c of order) {
    const why = coverageGap(channelCoverage(adapters.get(c.id), spec.model, spec.type === 'video' ? spec.variant : null), spec, outputSeconds);
    if (why) unable.push({ id: c.id, why });
    else able.push(c);
  }
  return { able, unable };
}

/** The upstream model a task goes to on this channel: the adapter's choice (effort tiers), else the mapping. */
export function upstreamModelOf(channel: Channel, adapter: ChannelAdapter | undefined, spec: TaskSpec): string | undefined {
  return adapter?.upstreamModel?.(spec) ?? upstreamModelFor(channel, spec.model, spec.type === 'video' ? spec.variant : null);
}
