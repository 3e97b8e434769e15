// Our task as a Gemini API request (pure). Veo takes reference images only as
// `{bytesBase64Encoded, mimeType}` (providers.md corrections 2: `inlineData` is refused with 400);
// Gemini image models take them as `inlineData` parts. Neither accepts URLs, so the adapter reads the
// bytes first and hands them in here.
import type { ImageTaskSpec, VideoTaskSpec } from '@mediagen/catalog';
import type { RenderReference } from '../channel-adapter';

export interface InlineReference {
  role: RenderReference['role'];
  mimeType: string;
  base64: string;
}

export const VEO_COMPONENTS_VARIANT = 'video-c-3.1-components';

export interface VeoRequest {
  instances: Array<Record<string, unknown>>;
  parameters: Record<string, unknown>;
}

/**
 * video-c-3.1 variants: Components sends its (up to 3) images as Veo "ingredients"
 * (`referenceImages`, type asset); Fast and Pro send theirs (up to 2) as the first frame and the
 * last frame, in `<Picture N>` order unless a reference names its frame explicitly. Duration and
 * resolution are the model's choice for video-c-3.1, so neither is sent; `seed` is never
 * sent to the Gemini API (js-genai refuses it outside Vertex).
 */
export function veoRequestBody(spec: VideoTaskSpec, refs: InlineReference[], referenceType: 'asset' | 'ASSET'): VeoRequest {
  const instance: Record<string, unknown> = {};
  if (spec.prompt) instance.prompt = spec.prompt;
  const image = (r: InlineReference) => ({ bytesBase64Encoded: r.base64, mimeType: r.mimeType });
  const images = refs.filter((r) => r.role === 'first_frame' || r.role === 'last_frame' || r.role === 'reference_image');
  if (spec.variant === VEO_COMPONENTS_VARIANT) {
    if (images.length) instance.referenceImages = images.map((r) => ({ image: image(r), referenceType }));
  } else {
    const first = images.find((r) => r.role === 'first_frame') ?? images.find((r) => r.role === 'reference_image');
    const last = images.find((r) => r.role === 'last_frame') ?? images.find((r) => r.role === 'reference_image' && r !== first);
    if (first) instance.image = image(first);
    if (last) instance.lastFrame = image(last);
  }
  return { instances: [instance], parameters: { aspectRatio: spec.ratio, sampleCount: 1 } };
}

/** Our image resolution as Gemini's imageSize ("1K"/"2K"/"4K", uppercase K). */
export const geminiImageSize = (resolution: string | null): string | undefined =>
  resolution && /^[124]k$/i.test(resolution) ? resolution.toUpperCase() : undefined;

/** gemini-2.5-flash-image has no size choice (providers.md 3). */
export const takesImageSize = (upstreamModel: string): boolean => !/^gemini-2\.5-/.test(upstreamModel);

export function geminiImageBody(spec: ImageTaskSpec, refs: InlineReference[], upstreamModel: string): Record<string, unknown> {
  // Images follow the text in `<Picture N>` order, so "Picture 1" is the first image part.
  const parts: Array<Record<string, unknown>> = [{ text: spec.prompt }];
  for (const r of refs) parts.push({ inlineData: { mimeType: r.mimeType, data: r.base64 } });
  const imageConfig: Record<string, unknown> = { aspectRatio: spec.ratio };
  const size = geminiImageSize(spec.resolution);
  if (size && takesImageSize(upstreamModel)) imageConfig.imageSize = size;
  return {
    contents: [{ role: 'user', parts }],
    generationConfig: { responseModalities: ['TEXT', 'IMAGE'], imageConfig },
  };
}
