// Our task as a Replicate prediction input (pure). The channel's `models` value is the Replicate
// model `owner/name` (official-model endpoint) or `owner/name:version`; input names differ per
// model family (replicate.com model schemas, providers.md 1.10 and 2.3). Families this file does not
// know are refused when the config loads (replicateUnsupported), never guessed at render time.
import { getModel, type TaskSpec } from '@mediagen/catalog';
import type { RenderReference } from '../channel-adapter';
import { UpstreamError } from '../upstream-error';
import { seedanceRefusal, seedanceShortfall } from './hosted-seedance';
import { KNOWN_IMAGE_MODELS, replicateImageModel } from './replicate-image-models';

export type ReplicateFamily = 'veo' | 'seedance' | 'image';

export interface ReplicateTarget {
  owner: string;
  name: string;
  version?: string;
}

export function parseReplicateModel(value: string | undefined): ReplicateTarget | null {
  const m = /^([\w.-]+)\/([\w.-]+)(?::([0-9a-f]{16,}))?$/.exec(value ?? '');
  return m ? { owner: m[1], name: m[2], ...(m[3] ? { version: m[3] } : {}) } : null;
}

export function replicateFamily(model: string, target: ReplicateTarget): ReplicateFamily | null {
  const info = getModel(model);
  if (!info) return null;
  if (info.type === 'image') return 'image';
  if (target.owner === 'google' && /^veo-3\.1/.test(target.name)) return info.family === 'video-c' ? 'veo' : null;
  if (target.owner === 'bytedance' && /^seedance-/.test(target.name)) return info.family === 'video-b' ? 'seedance' : null;
  return null;
}

export function replicateUnsupported(model: string, value: string | undefined, variant: string | null = null): string | null {
  const info = getModel(model);
  if (!info) return `${model} is not in the catalog`;
  const target = parseReplicateModel(value);
  if (!target) return `the channel maps ${model} to "${value ?? ''}", not a Replicate model (owner/name[:version])`;
  const family = replicateFamily(model, target);
  if (family === 'image' && info.type === 'image') {
    const inputs = replicateImageModel(target.owner, target.name);
    if (!inputs) return `${model} on Replicate model ${target.owner}/${target.name}: this adapter knows the image inputs of ${KNOWN_IMAGE_MODELS.join(', ')} only (each names its reference images differently)`;
    if (info.maxImages > inputs.images.max)
      return `${model} takes up to ${info.maxImages} reference images; ${target.owner}/${target.name} takes ${inputs.images.max} (${inputs.images.input})`;
    const ratio = info.ratios.find((r) => !inputs.ratios.includes(r));
    if (ratio) return `${model} offers ratio ${ratio}, which ${target.owner}/${target.name} does not take`;
    const size = info.resolutions.find((r) => !inputs.resolution?.values[r]);
    if (size) return `${model} offers resolution ${size}, which ${target.owner}/${target.name} has no input for`;
    return null;
  }
  if (family === 'seedance') return seedanceShortfall(model, target.name);
  // google/veo-3.1 takes reference images only at 16:9 (and 8 s): Components cannot render 9:16 there.
  if (family === 'veo' && variant === 'video-c-3.1-components' && info.ratios.some((r) => r !== '16:9'))
    return `${model} (variant ${variant}) offers ratios ${info.ratios.join(', ')}, but ${value} takes reference images only at 16:9`;
  if (family) return null;
  return `${model} on Replicate model ${value}: this adapter knows the inputs of google/veo-3.1 (video-c-3.1), bytedance/seedance-* (video-b) and image models; ${info.type === 'video' ? info.family : 'this model'} cannot be mapped there`;
}

const urls = (refs: RenderReference[], role: RenderReference['role']) => refs.filter((r) => r.role === role).map((r) => r.url);

export function replicateInput(spec: TaskSpec, refs: RenderReference[], target: ReplicateTarget, outputSeconds: number | null): Record<string, unknown> {
  const input: Record<string, unknown> = { aspect_ratio: spec.ratio };
  if (spec.prompt) input.prompt = spec.prompt;
  if (spec.type === 'image') {
    // Each model names its inputs (replicate-image-models.ts); an unknown one was refused at startup.
    const inputs = replicateImageModel(target.owner, target.name);
    if (!inputs) throw new UpstreamError('failed', `submit: not sent, ${target.owner}/${target.name} is not a Replicate image model this adapter knows`);
    const images = refs.map((r) => r.url);
    if (images.length > inputs.images.max)
      throw new UpstreamError('failed', `submit: not sent, ${target.owner}/${target.name} takes at most ${inputs.images.max} reference images`);
    if (images.length) input[inputs.images.input] = inputs.images.list ? images : images[0];
    const size = spec.resolution ? inputs.resolution?.values[spec.resolution] : undefined;
    if (size) input[inputs.resolution!.input] = size;
    if (inputs.outputFormat) input.output_format = inputs.outputFormat;
    return input;
  }
  const family = replicateFamily(spec.model, target);
  const images = refs.filter((r) => r.role === 'first_frame' || r.role === 'last_frame' || r.role === 'reference_image');
  if (family === 'veo') {
    // video-c-3.1 decides its length and resolution: the model's defaults apply.
    if (spec.variant === 'video-c-3.1-components') {
      if (images.length) input.reference_images = images.map((r) => r.url);
      return input;
    }
    const first = images.find((r) => r.role === 'first_frame') ?? images.find((r) => r.role === 'reference_image');
    const last = images.find((r) => r.role === 'last_frame') ?? images.find((r) => r.role === 'reference_image' && r !== first);
    if (first) input.image = first.url;
    if (last) input.last_frame = last.url;
    return input;
  }
  const refused = seedanceRefusal(refs);
  if (refused) throw new UpstreamError('failed', `submit: not sent: ${refused}`);
  const seconds = outputSeconds ?? spec.duration;
  if (seconds) input.duration = seconds;
  if (spec.resolution) input.resolution = spec.resolution;
  if (spec.seed != null) input.seed = spec.seed;
  const first = urls(refs, 'first_frame')[0];
  const last = urls(refs, 'last_frame')[0];
  if (first) input.image = first;
  if (last) input.last_frame_image = last;
  const refImages = urls(refs, 'reference_image');
  const refVideos = urls(refs, 'reference_video');
  const refAudios = urls(refs, 'reference_audio');
  if (refImages.length) input.reference_images = refImages;
  if (refVideos.length) input.reference_videos = refVideos;
  if (refAudios.length) input.reference_audios = refAudios;
  return input;
}
