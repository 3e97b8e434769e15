// What a MiniMax v2 channel renders of video-a-h3 (routing per task, coverage.ts): the resolutions
// its `resolutions` setting maps, lengths up to its `durations` maximum, and the effort tiers
// its `effortModels` name an upstream model for (MiniMax has no effort parameter). A channel that
// maps only part of them serves that part; another channel serves the rest.
import { getModel } from '@mediagen/catalog';
import type { Coverage } from '../coverage';
import type { MinimaxChannel } from './minimax-config';

/** Why this channel can never serve the model (a mapping error at start), or null. */
export function minimaxMappingError(model: string): string | null {
  const info = getModel(model);
  if (!info) return `${model} is not a model of the catalog`;
  if (info.type !== 'video' || info.family !== 'video-a') return `${model} is not an H3 model; MiniMax v2 serves video-a-h3 only`;
  return null;
}

export function minimaxCoverage(model: string, channel: MinimaxChannel): Coverage {
  const info = getModel(model);
  if (!info || info.type !== 'video') return {};
  const c: Coverage = {};
  const mapped = info.resolutions.filter((r) => channel.resolutions[r as keyof MinimaxChannel['resolutions']]);
  if (mapped.length < info.resolutions.length) c.resolutions = mapped;
  // A shorter length is rendered at the channel's minimum (a longer video, minimax-request.ts); only
  // a longer one is out of reach.
  const sold = Object.values(info.durations ?? {});
  if (sold.some((r) => r.max > channel.durations.max)) c.seconds = { min: Math.min(...sold.map((r) => r.min)), max: channel.durations.max };
  const efforts = (['1.5x', '2x'] as const).filter((e) => channel.effortModels[e]);
  if (efforts.length < 2) c.efforts = ['1x', ...efforts];
  return c;
}
