// Our task as a fal queue request (pure). The channel's `models` value is the fal app
// (`owner/app[/variant]`); the references decide the sub-path and the input names,
// which differ per app family (fal.ai model pages, providers.md 1.10 and 2.3). Families this file
// does not know are refused when the config loads (falUnsupported), never guessed at render time.
import { getModel, type TaskSpec } from '@mediagen/catalog';
import type { RenderReference } from '../channel-adapter';
import { seedanceRefusal, seedanceShortfall } from '../replicate/hosted-seedance';
import { UpstreamError } from '../upstream-error';

export type FalFamily = 'veo' | 'seedance' | 'image';

export interface FalRoute {
  /** Path under the queue host: `owner/app[/variant][/sub-path]`. */
  path: string;
  input: Record<string, unknown>;
}

export function falFamily(model: string, app: string): FalFamily | null {
  const info = getModel(model);
  if (!info) return null;
  if (info.type === 'image') return 'image';
  if (/(^|\/)veo3\.1(\/|$)/.test(app)) return info.family === 'video-c' ? 'veo' : null;
  if (/(^|\/)seedance-/.test(app)) return info.family === 'video-b' ? 'seedance' : null;
  return null;
}

/**
 * fal's MiniMax H3 app (`minimax/h3-max`, providers.md 5 "third-party hosts"): H3 Max renders 480P
 * and 768P, 5-15 s (Runware's figures for the same model), and has no effort knob. video-a-h3 sells
 * 1080p, 1-15 s and effort 1.5x/2x, so no fal app can serve all of it: a mapping is refused when the
 * config loads (and no request mapping exists for it).
 */
const FAL_H3 = /(^|\/)(minimax\/)?h3(-max)?(\/|$)/i;

export function falUnsupported(model: string, app: string | undefined): string | null {
  const info = getModel(model);
  if (!info) return `${model} is not in the catalog`;
  if (!app || !/^[\w.-]+\/[\w.-]+(\/[\w.-]+)*$/.test(app)) return `the channel maps ${model} to "${app ?? ''}", not a fal app (owner/app)`;
  if (FAL_H3.test(app) && info.type === 'video' && info.family === 'video-a')
    return `${model} sells 480p/768p/1080p, 1-15 s and effort 1.5x/2x; fal's ${app} renders 480P/768P, 5-15 s and has no effort tiers: map video-a-h3 to a MiniMax v2 channel (protocol minimax)`;
  const family = falFamily(model, app);
  if (family === 'seedance') return seedanceShortfall(model, app);
  if (family) return null;
  return `${model} on fal app ${app}: this adapter knows the inputs of Veo 3.1 apps (video-c-3.1), Seedance apps (video-b) and image apps; ${info.type === 'video' ? `${info.family} on this app` : 'this app'} cannot be mapped`;
}

const urls = (refs: RenderReference[], role: RenderReference['role']) => refs.filter((r) => r.role === role).map((r) => r.url);

export function falRoute(spec: TaskSpec, refs: RenderReference[], app: string, outputSeconds: number | null): FalRoute {
  const family = falFamily(spec.model, app);
  if (spec.type === 'image' || family === 'image') {
    const images = refs.map((r) => r.url);
    const input: Record<string, unknown> = { prompt: spec.prompt, aspect_ratio: spec.ratio, num_images: 1, output_format: 'png' };
    if (spec.type === 'image' && spec.resolution) input.resolution = spec.resolution.toUpperCase();
    // Image apps take references on their `/edit` endpoint (nano-banana, seedream), in <Picture N> order.
    if (images.length) return { path: `${app}/edit`, input: { ...input, image_urls: images } };
    return { path: app, input };
  }
  const input: Record<string, unknown> = { aspect_ratio: spec.ratio };
  if (spec.prompt) input.prompt = spec.prompt;
  const images = refs.filter((r) => r.role !== 'reference_video' && r.role !== 'reference_audio');
  if (family === 'veo') {
    // video-c-3.1 decides its own length and resolution: fal's defaults apply.
    if (spec.variant === 'video-c-3.1-components' && images.length) return { path: `${app}/reference-to-video`, input: { ...input, image_urls: images.map((r) => r.url) } };
    const first = images.find((r) => r.role === 'first_frame') ?? images.find((r) => r.role === 'reference_image');
    const last = images.find((r) => r.role === 'last_frame') ?? images.find((r) => r.role === 'reference_image' && r !== first);
    if (first && last) return { path: `${app}/first-last-frame-to-video`, input: { ...input, first_frame_url: first.url, last_frame_url: last.url } };
    if (first) return { path: `${app}/image-to-video`, input: { ...input, image_url: first.url } };
    return { path: app, input };
  }
  // Seedance: duration in whole seconds as a string, like fal's other video apps; seed when asked.
  const seconds = outputSeconds ?? spec.duration;
  if (seconds) input.duration = String(seconds);
  if (spec.resolution) input.resolution = spec.resolution;
  if (spec.seed != null) input.seed = spec.seed;
  const refused = seedanceRefusal(refs);
  if (refused) throw new UpstreamError('failed', `submit: not sent: ${refused}`);
  const first = urls(refs, 'first_frame')[0];
  const last = urls(refs, 'last_frame')[0];
  if (first) return { path: `${app}/image-to-video`, input: { ...input, image_url: first, ...(last ? { end_image_url: last } : {}) } };
  const refImages = urls(refs, 'reference_image');
  const refVideos = urls(refs, 'reference_video');
  const refAudios = urls(refs, 'reference_audio');
  if (refImages.length || refVideos.length || refAudios.length)
    return {
      path: `${app}/reference-to-video`,
      input: {
        ...input,
        ...(refImages.length ? { image_urls: refImages } : {}),
        ...(refVideos.length ? { video_urls: refVideos } : {}),
        ...(refAudios.length ? { audio_urls: refAudios } : {}),
      },
    };
  return { path: `${app}/text-to-video`, input };
}

/** Status, result and cancel live under `owner/app` only, without the variant or sub-path (LiteLLM's fix). */
export const falAppRoot = (path: string): string => path.split('/').slice(0, 2).join('/');
