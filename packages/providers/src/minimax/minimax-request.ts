// Our video-a-h3 task as a MiniMax v2 `POST /v2/video_generation` body (pure; providers.md §5).
// `content[]` has Ark's shape: the prompt, then one part per reference with its role, in the order
// RenderRequest gives them, so the N-th `reference_image` is the client's `<Picture N>`.
import { getModel, type VideoTaskSpec } from '@mediagen/catalog';
import type { RenderRequest } from '../channel-adapter';
import { type ContentPart, referenceParts, wholeSeconds } from '../modelark/modelark-request';
import type { MinimaxChannel } from './minimax-config';

/** The upstream model: effort tiers above 1x may be rendered by another model (effortModels). */
export function minimaxModel(spec: VideoTaskSpec, channel: MinimaxChannel): string | undefined {
  const byEffort = spec.effort === '1.5x' || spec.effort === '2x' ? channel.effortModels[spec.effort] : undefined;
  return byEffort ?? channel.models[spec.model];
}

export function minimaxBody(req: RenderRequest, spec: VideoTaskSpec, upstreamModel: string, channel: MinimaxChannel): Record<string, unknown> {
  let refs = req.references;
  if (spec.refMode === 'lip-sync')
    // Spec 4.1.1: the lip-sync image is the locked first frame; the audio drives the lips.
    refs = refs.map((r) => (r.role === 'reference_image' ? { ...r, role: 'first_frame' as const } : r));
  const content: ContentPart[] = [];
  if (spec.prompt) content.push({ type: 'text', text: spec.prompt });
  content.push(...referenceParts(refs));
  const body: Record<string, unknown> = { model: upstreamModel, content, ratio: spec.ratio, aigc_watermark: channel.watermark };
  const resolution = spec.resolution ? channel.resolutions[spec.resolution as keyof MinimaxChannel['resolutions']] : undefined;
  if (resolution) body.resolution = resolution;
  // Lip-sync without a duration is as long as its audio: the priced seconds say how long that is.
  const seconds = req.outputSeconds ?? spec.duration;
  if (seconds !== null) body.duration = wholeSeconds(seconds);
  if (spec.seed !== null) body.seed = spec.seed;
  // optimize_prompt is our own rewrite before the submit (apps/worker prompt-rewrite.ts): the prompt
  // here is already the one to render. v2 documents no prompt_optimizer field, so none is sent.
  return body;
}

/** Why this MiniMax channel cannot serve every mode the catalog offers for the model, or null. */
export function minimaxUnsupported(model: string, channel: MinimaxChannel): string | null {
  const info = getModel(model);
  if (!info) return `${model} is not a model of the catalog`;
  if (info.type !== 'video' || info.family !== 'video-a') return `${model} is not an H3 model; MiniMax v2 serves video-a-h3 only`;
  const missing = info.resolutions.filter((r) => !channel.resolutions[r as keyof MinimaxChannel['resolutions']]);
  if (missing.length) return `${model} offers ${missing.join(', ')}, which this channel maps to no MiniMax resolution (setting resolutions)`;
  for (const [res, range] of Object.entries(info.durations ?? {}))
    if (range.min < channel.durations.min || range.max > channel.durations.max)
      return `${model} offers ${range.min}-${range.max} s at ${res}; this channel renders ${channel.durations.min}-${channel.durations.max} s (setting durations)`;
  const efforts = (['1.5x', '2x'] as const).filter((e) => !channel.effortModels[e]);
  if (efforts.length) return `${model} offers effort ${efforts.join(' and ')}, which MiniMax has no parameter for: name the upstream model for each in effortModels`;
  return null;
}
