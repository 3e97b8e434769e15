// Which channels may run a task, in the order they are tried.
import { Channel, ChannelConfig, upstreamModelFor } from './channel-config';

export type RequestedTier = 'official' | 'third-party' | null;

/**
 * Spec 4.1.2: `third-party` is the low-cost channel, so only third-party channels run it; with
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
