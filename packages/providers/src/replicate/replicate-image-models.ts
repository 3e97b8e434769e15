// The inputs of the Replicate image models this adapter can drive, per model (their input schemas
// differ: `image_prompt` on FLUX 1.1 pro, `input_images` on FLUX.2 pro, `image_input` on Google's and
// ByteDance's), read from each model's API page on replicate.com (2026-11-27; sources in
// docs/protocol-replicate.md). A model not listed is refused when the config loads: sending another
// model's input names would make Replicate ignore or refuse the reference images.

export interface ReplicateImageModel {
  /** The input that takes the reference images: a list, or a single URL. */
  images: { input: string; list: boolean; max: number };
  /** The input that takes our resolution, as the model spells it (1K/2K/4K); none: no size choice. */
  resolution?: { input: string; values: Readonly<Record<string, string>> };
  /** `aspect_ratio` values it takes. */
  ratios: readonly string[];
  /** `output_format` to ask for (png: lossless, one less re-encode); none when it has no such input. */
  outputFormat?: string;
}

const K = { '1k': '1K', '2k': '2K', '4k': '4K' } as const;
const FLUX_RATIOS = ['1:1', '16:9', '3:2', '2:3', '4:5', '5:4', '9:16', '3:4', '4:3'];
const GEMINI_RATIOS = ['1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '16:9', '21:9'];

const MODELS: Readonly<Record<string, ReplicateImageModel>> = {
  // replicate.com/black-forest-labs/flux-1.1-pro/versions/96ccd0e7.../api: one `image_prompt` (Flux Redux).
  'black-forest-labs/flux-1.1-pro': { images: { input: 'image_prompt', list: false, max: 1 }, ratios: FLUX_RATIOS, outputFormat: 'png' },
  // replicate.com/black-forest-labs/flux-2-pro/versions/285631b5.../api: `input_images`, at most 8.
  'black-forest-labs/flux-2-pro': { images: { input: 'input_images', list: true, max: 8 }, ratios: FLUX_RATIOS, outputFormat: 'png' },
  // replicate.com/google/nano-banana-pro/versions/f5318740.../api: `image_input` up to 14, `resolution` 1K/2K/4K.
  'google/nano-banana-pro': { images: { input: 'image_input', list: true, max: 14 }, resolution: { input: 'resolution', values: K }, ratios: GEMINI_RATIOS, outputFormat: 'png' },
  // replicate.com/google/nano-banana/versions/f0a9d34b.../api: `image_input` ("multiple images"; Gemini 2.5 Flash Image takes 3 well).
  'google/nano-banana': { images: { input: 'image_input', list: true, max: 14 }, ratios: GEMINI_RATIOS, outputFormat: 'png' },
  // bytedance/seedream-4 (project notes §4, Replicate page): `image_input` 1-10, `size` 1K/2K/4K (not re-read here).
  'bytedance/seedream-4': { images: { input: 'image_input', list: true, max: 10 }, resolution: { input: 'size', values: K }, ratios: [...GEMINI_RATIOS.filter((r) => r !== '4:5' && r !== '5:4')], outputFormat: undefined },
};

/** The inputs of `owner/name`, or undefined for a model this adapter does not know. */
export function replicateImageModel(owner: string, name: string): ReplicateImageModel | undefined {
  return MODELS[`${owner}/${name}`];
}

export const KNOWN_IMAGE_MODELS: readonly string[] = Object.keys(MODELS);
