// POST /api/image/generate: structure (zod), then the model, ratio, resolution and reference images
// against the catalog. Only image-a-5.0 and image-b-2.5 take a resolution; the others refuse it rather
// than ignore it, because a client asking for 4k should not silently get something else.
import type { ImageTaskSpec, ValidateOptions } from './types';
import { imageSubmitBodySchema } from './request-schemas';
import { resolveImageModel } from './model-resolution';
import { checkSold } from './sold';
import { DEFAULT_IMAGE_RATIO } from './models';
import { parseMediaRef } from './media-items';
import { parseCallbackUrl } from './callback-url';
import { checkChoice, checkInlineCount, checkPrompt, fail, isSent, parseStructure, unsupported } from './param-checks';

export function parseImageSubmit(body: unknown, opts: ValidateOptions): { spec: ImageTaskSpec; clientRequestId: string | null; callbackUrl: string | null; maxCostCents: number | null } {
  const parsed = parseStructure(imageSubmitBodySchema, body);
  const { model } = resolveImageModel(parsed.model);
  checkSold(opts.sold, model, null, null);

  let resolution: string | null = model.defaultResolution;
  if (isSent(parsed.resolution)) {
    if (model.resolutions.length === 0) unsupported('resolution', `${model.id} has no resolution parameter; resolution is offered by image-a-5.0 and image-b-2.5`);
    resolution = checkChoice(parsed.resolution!, model.resolutions, 'resolution', `${model.id} offers`);
  }
  const ratio = checkChoice(parsed.ratio ?? DEFAULT_IMAGE_RATIO, model.ratios, 'ratio', `${model.id} offers`);
  const prompt = checkPrompt(parsed.prompt, true)!;

  const sent = parsed.images ?? [];
  if (sent.length > model.maxImages) fail(`images[${model.maxImages}]`, `${model.id} takes at most ${model.maxImages} reference images`);
  const images = sent.map((url, i) => parseMediaRef(url, `images[${i}]`, 'image', 'reference', opts));
  checkInlineCount(images);

  return { spec: { type: 'image', model: model.id, prompt, ratio, resolution, images }, clientRequestId: parsed.client_request_id ?? null, callbackUrl: parseCallbackUrl(parsed.callback_url, opts), maxCostCents: parsed.max_cost_cents ?? null };
}
