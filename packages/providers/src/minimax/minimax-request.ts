// Our video-a-h3 task as a MiniMax v2 `POST /v2/video_generation` body (pure; providers.md §5).
// `content[]` has Ark's shape: the prompt, then one part per reference with its role, in the order
// RenderRequest gives them, so the N-th `reference_image` is the client's `<Picture N>`.
// The rules below are the upstream's own (MiniMax-AI/cli src/video/v2.ts `validateVideoV2Request`,
// vercel/ai packages/minimax, read 2026-11-27); a request that breaks one is refused here, before
// anything is sent (docs/protocol-minimax.md):
// - a non-empty text part is always sent (lip-sync without a prompt gets LIP_SYNC_TEXT);
// - frame inputs (first_frame, last_frame) and reference inputs cannot be used together;
// - reference audio needs a reference image or video;
// - `resolution` is `2K` only (channel setting `resolutions`), durations 4-15 s (`durations`);
// - with frames the ratio is `adaptive` (the frame decides it); text-to-video needs a concrete one;
// - no `seed` (the CLI has none, vercel/ai calls it unsupported).
import { getModel, type VideoTaskSpec } from '@mediagen/catalog';
import type { RenderRequest } from '../channel-adapter';
import { type ContentPart, referenceParts, wholeSeconds } from '../modelark/modelark-request';
import { UpstreamError } from '../upstream-error';
import type { MinimaxChannel } from './minimax-config';

/**
 * The text part of a lip-sync task sent without a prompt (the prompt is optional for lip-sync; MiniMax-H3
 * refuses an empty text part).
 */
export const LIP_SYNC_TEXT = 'The person in the reference image speaks, lips in sync with the reference audio.';

/** The upstream model: effort tiers above 1x may be rendered by another model (effortModels). */
export function minimaxModel(spec: VideoTaskSpec, channel: MinimaxChannel): string | undefined {
  const byEffort = spec.effort === '1.5x' || spec.effort === '2x' ? channel.effortModels[spec.effort] : undefined;
  return byEffort ?? channel.models[spec.model];
}

/** A request MiniMax-H3 refuses: the task moves on to its next channel without anything sent. */
const refuse = (why: string) => new UpstreamError('failed', `submit: not sent, MiniMax-H3 refuses it: ${why}`);

export function minimaxBody(req: RenderRequest, spec: VideoTaskSpec, upstreamModel: string, channel: MinimaxChannel): Record<string, unknown> {
  // Lip-sync (the image is the speaker, the audio drives the lips) is sent as a
  // reference image with reference audio: a first_frame may not come with reference audio.
  const refs = req.references;
  const frames = refs.filter((r) => r.role === 'first_frame' || r.role === 'last_frame');
  const references = refs.filter((r) => r.role !== 'first_frame' && r.role !== 'last_frame');
  if (frames.length && references.length)
    throw refuse(`frame inputs and reference inputs cannot be used together (ref_mode ${spec.refMode} with frames and media)`);
  if (references.some((r) => r.role === 'reference_audio') && !references.some((r) => r.role === 'reference_image' || r.role === 'reference_video'))
    throw refuse('reference audio requires at least one reference image or video');

  const text = spec.prompt?.trim() ? spec.prompt : spec.refMode === 'lip-sync' ? LIP_SYNC_TEXT : null;
  if (!text) throw refuse('a non-empty text part is required');
  const content: ContentPart[] = [{ type: 'text', text }, ...referenceParts(refs)];

  const resolution = spec.resolution ? channel.resolutions[spec.resolution as keyof MinimaxChannel['resolutions']] : channel.resolutions['768p'];
  if (!resolution) throw refuse(`no upstream resolution for ${spec.resolution} on channel ${channel.id} (setting resolutions)`);
  // Lip-sync without a duration is as long as its audio: the priced seconds say how long that is.
  // Shorter than the upstream's minimum renders the minimum: a longer video than sold, never shorter.
  const sold = req.outputSeconds ?? spec.duration ?? channel.durations.min;
  const duration = Math.max(channel.durations.min, wholeSeconds(sold));
  if (duration > channel.durations.max) throw refuse(`${duration} s is longer than the ${channel.durations.max} s it renders`);

  const body: Record<string, unknown> = {
    model: upstreamModel,
    content,
    resolution,
    duration,
    ratio: frames.length ? 'adaptive' : spec.ratio,
    aigc_watermark: channel.watermark,
  };
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
  // Shorter durations are rendered at the upstream's minimum (a longer video); longer ones cannot be.
  for (const [res, range] of Object.entries(info.durations ?? {}))
    if (range.max > channel.durations.max)
      return `${model} offers up to ${range.max} s at ${res}; this channel renders at most ${channel.durations.max} s (setting durations)`;
  const efforts = (['1.5x', '2x'] as const).filter((e) => !channel.effortModels[e]);
  if (efforts.length) return `${model} offers effort ${efforts.join(' and ')}, which MiniMax has no parameter for: name the upstream model for each in effortModels`;
  return null;
}
