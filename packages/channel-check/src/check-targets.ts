// What a channel check looks at: every channel of the config and every upstream model it sends
// tasks to (its `models` values, and the upstream models of a MiniMax channel's effort tiers), each
// with our models that map to it.
import type { Channel, ChannelConfig } from '@mediagen/providers';

export interface CheckTarget {
  channel: Channel;
  upstreamModel: string;
  /** Our model (or variant) ids sent to it on this channel. */
  models: string[];
}

export function checkTargets(config: ChannelConfig, channelIds?: readonly string[]): CheckTarget[] {
  const out: CheckTarget[] = [];
  for (const channel of config.channels) {
    if (channelIds && !channelIds.includes(channel.id)) continue;
    const byUpstream = new Map<string, string[]>();
    const add = (upstream: string, model: string) => byUpstream.set(upstream, [...(byUpstream.get(upstream) ?? []), model]);
    for (const [model, upstream] of Object.entries(channel.models)) add(upstream, model);
    // MiniMax renders effort tiers above 1x on other upstream models (minimax-config.ts effortModels).
    if (channel.protocol === 'minimax')
      for (const [effort, upstream] of Object.entries(channel.effortModels)) if (upstream) add(upstream, `${Object.keys(channel.models)[0] ?? 'video-a-h3'} effort ${effort}`);
    for (const [upstreamModel, models] of byUpstream) out.push({ channel, upstreamModel, models });
  }
  return out;
}
