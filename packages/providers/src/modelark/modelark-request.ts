// Our task as a ModelArk request body (pure). Seedance video: `POST /contents/generations/tasks`
// with an ordered `content[]` (providers.md §1.2); Seedream images: `POST /images/generations`
// (§4). Reference media go out as URLs (our storage's copies), never re-encoded.
import { getModel, type ImageModelInfo, type ImageTaskSpec, type VideoTaskSpec } from '@mediagen/catalog';
import type { RenderReference, RenderRequest } from '../channel-adapter';
import { attemptSeed } from '../orphan-search';
import type { ModelarkChannel } from './modelark-config';
import { seedanceShortfall } from './seedance-limits';
import { seedanceRefusal } from '../replicate/hosted-seedance';
import { UpstreamError } from '../upstream-error';
import { SCALE, SIZES_2K, seedreamSize, seedreamVersion } from './seedream-sizes';

export type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string }; role: 'first_frame' | 'last_frame' | 'reference_image' }
  | { type: 'video_url'; video_url: { url: string }; role: 'reference_video' }
  | { type: 'audio_url'; audio_url: { url: string }; role: 'reference_audio' };

/**
 * One part per reference, in the order RenderRequest gives them (frames, then media in request
 * order), so "image 1", "video 1"... in a prompt name the file the client put in that place.
 * Shared with MiniMax v2, whose `content[]` has the same shape (§5).
 */
export function referenceParts(refs: readonly RenderReference[]): ContentPart[] {
  return refs.map((r): ContentPart => {
    switch (r.role) {
      case 'reference_video':
        return { type: 'video_url', video_url: { url: r.url }, role: 'reference_video' };
      case 'reference_audio':
        return { type: 'audio_url', audio_url: { url: r.url }, role: 'reference_audio' };
      default:
        return { type: 'image_url', image_url: { url: r.url }, role: r.role };
    }
  });
}

/** Whole seconds: the upstream takes integers, and we never render less than was priced. */
export const wholeSeconds = (s: number) => Math.max(1, Math.ceil(s - 1e-9));

/**
 * The client's seed, else (orphan search on) one derived from the attempt: the tag by which a
 * resumed attempt finds its task in the upstream's list (the task echoes its seed).
 */
export function seedanceSeed(req: Pick<RenderRequest, 'attemptId'>, spec: VideoTaskSpec, channel: Pick<ModelarkChannel, 'orphanSearch'>): number | undefined {
  if (spec.seed !== null && spec.seed !== undefined) return spec.seed;
  return channel.orphanSearch !== false ? attemptSeed(req.attemptId) : undefined;
}

export function seedanceBody(req: RenderRequest, spec: VideoTaskSpec, upstreamModel: string, channel: ModelarkChannel): Record<string, unknown> {
  // 2.x rules (providers.md 1.2, the hosts' schemas): refused here rather than sent to be refused.
  const refused = /seedance-2-/i.test(upstreamModel) ? seedanceRefusal(req.references) : null;
  if (refused) throw new UpstreamError('failed', `submit: not sent: ${refused}`);
  const content: ContentPart[] = [];
  if (spec.prompt) content.push({ type: 'text', text: spec.prompt });
  content.push(...referenceParts(req.references));
  const seconds = req.outputSeconds ?? spec.duration;
  const body: Record<string, unknown> = { model: upstreamModel, content, ratio: spec.ratio, watermark: channel.watermark };
  if (spec.resolution) body.resolution = spec.resolution;
  if (seconds !== null) body.duration = wholeSeconds(seconds);
  const seed = seedanceSeed(req, spec, channel);
  if (seed !== undefined) body.seed = seed;
  if (channel.generateAudio !== undefined) body.generate_audio = channel.generateAudio;
  if (channel.serviceTier) body.service_tier = channel.serviceTier;
  if (channel.executionExpiresAfterS) body.execution_expires_after = channel.executionExpiresAfterS;
  if (req.callbackUrl) body.callback_url = req.callbackUrl;
  return body;
}

export { seedreamSize } from './seedream-sizes';

export function seedreamBody(req: RenderRequest, spec: ImageTaskSpec, upstreamModel: string, channel: ModelarkChannel): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: upstreamModel,
    prompt: spec.prompt,
    // The nearest size this Seedream version takes (seedream-sizes.ts): it refuses the others.
    size: seedreamSize(spec.ratio, spec.resolution, upstreamModel),
    response_format: channel.imageResponseFormat,
    watermark: channel.watermark,
  };
  // Not `sequential_image_generation`: its default is "disabled" (one image), and 5.0 pro refuses the field.
  const images = req.references.map((r) => r.url);
  if (images.length) body.image = images;
  return body;
}

/**
 * Why Seedream (as `upstreamModel`) cannot serve every mode the catalog sells for an image model,
 * or null. Each ratio and resolution must have an explicit size (seedreamSize falls back to 1:1 /
 * 2K for anything else, which would silently change the picture), and the version must take as
 * many reference images as the model accepts. An id that names no Seedream (a private endpoint
 * `ep-...`) is the operator's call; a Seedance (video) id is refused.
 */
export function seedreamShortfall(info: ImageModelInfo, upstreamModel: string | undefined): string | null {
  if (upstreamModel && /seedance/i.test(upstreamModel)) return `${upstreamModel} is a Seedance video model; ${info.id} is an image model (Seedream, /images/generations)`;
  const ratios = info.ratios.filter((r) => !SIZES_2K[r]);
  if (ratios.length) return `${info.id} offers ratio ${ratios.join(', ')}, for which this adapter knows no Seedream size`;
  const resolutions = info.resolutions.filter((r) => SCALE[r] === undefined);
  if (resolutions.length) return `${info.id} offers resolution ${resolutions.join(', ')}, which Seedream sizes do not cover (1k, 2k, 4k)`;
  const cap = seedreamVersion(upstreamModel)?.maxRefs;
  if (cap !== undefined && info.maxImages > cap)
    return `${info.id} takes up to ${info.maxImages} reference images; ${upstreamModel} takes ${cap === 0 ? 'none (text-to-image only)' : cap}`;
  return null;
}

/**
 * Why a ModelArk channel cannot serve this model with every mode the catalog offers, or null.
 * `upstreamModel` is the channel's mapping for it, checked against the Seedance / Seedream version's limits.
 */
export function modelarkUnsupported(model: string, upstreamModel?: string): string | null {
  const info = getModel(model);
  if (!info) return `${model} is not a model of the catalog`;
  if (info.type === 'image') return seedreamShortfall(info, upstreamModel);
  switch (info.family) {
    case 'video-b':
      if (upstreamModel && /seedream/i.test(upstreamModel)) return `${upstreamModel} is a Seedream image model; ${model} is a video model (Seedance, /contents/generations/tasks)`;
      return upstreamModel ? seedanceShortfall(info, upstreamModel) : null;
    case 'video-a':
      return `${model} has ref_mode lip-sync, effort tiers and optimize_prompt, which Seedance has no parameter for`;
    default:
      return `${model} variants are Veo models with their own reference rules; ModelArk serves Seedance and Seedream`;
  }
}
