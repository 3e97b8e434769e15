// Structural schemas of the two submit bodies: JSON types, enums and unknown fields only. The
// per-model rules (which fields a model takes, ranges, counts) live in the *-rules.ts files because
// they depend on each other; keeping them out of zod keeps these schemas readable as OpenAPI.
// `null` is accepted wherever a field is optional and means the same as leaving the field out.
import { z } from 'zod';
import { IDEMPOTENCY_KEY_MAX, idempotencyKeyLength, MAX_IMAGE_TASK_IMAGES, MAX_PROMPT_CHARS, SEED_MAX } from './limits';
import { IMAGE_MODEL_IDS, VIDEO_MODEL_IDS } from './models';
import { EFFORTS, REF_MODES } from './video-a-modes';

const opt = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

export const mediaKindSchema = z.enum(['image', 'video', 'audio']);

/** Schema maximum: no model takes more; refused before any per-item work. */
const MAX_MEDIA_ITEMS = 64;

export const mediaItemSchema = z
  .strictObject({
    type: mediaKindSchema.meta({ description: 'Kind of reference file.', example: 'image' }),
    url: z.string().meta({
      description: 'Public https URL, or a base64 data URI `data:<mime>;base64,<data>` (images jpeg/png/webp and audio only; videos by URL only).',
      example: 'https://example.com/cat.png',
    }),
  })
  .meta({ id: 'MediaItem', description: 'A reference file.' });

const clientRequestId = z
  .string()
  .min(1)
  // Measured in characters, as the Idempotency-Key header is (not in UTF-16 units).
  .refine((s) => idempotencyKeyLength(s) <= IDEMPOTENCY_KEY_MAX, `must be 1-${IDEMPOTENCY_KEY_MAX} characters`)
  .meta({
  description: 'Idempotency id, 1-255 characters; the Idempotency-Key header wins when both are sent.',
  example: 'batch-7-item-42',
});

const callbackUrl = z.string().meta({
  description: 'Extension: an https URL that receives the task.completed / task.failed event of this task, signed with the account\'s callback signing secret (Standard Webhooks).',
  example: 'https://example.com/hooks/mediagen',
});

const maxCostCents = z
  .number()
  .int()
  .min(0)
  .meta({
    description: 'Extension: the most this task may cost, in cents. A dearer task is refused with 422 `cost_above_limit` (body with `costCents`) before anything is charged. POST .../quote tells the cost beforehand.',
    example: 50,
  });

const promptDescription = `Text prompt, ${MAX_PROMPT_CHARS} characters at most, not blank.`;

export const videoSubmitBodySchema = z
  .strictObject({
    model: z.string().meta({
      description: `One of ${VIDEO_MODEL_IDS.join(', ')}. The legacy alias video-b-2 maps to video-b-2.0.`,
      example: 'video-a-h3',
    }),
    prompt: opt(z.string()).meta({
      description: `${promptDescription} Required, except for video-a-h3 with ref_mode lip-sync.`,
      example: 'A red fox runs through fresh snow at dawn',
    }),
    duration: opt(z.number().int()).meta({
      description: 'Seconds of output. video-a-h3: 1-15 (1080p: 1-10), default 5; video-b-2.5: 4-30, video-b-2.0(-mini): 4-15, default 5. Not a parameter of video-c-3.1. Lip-sync: defaults to the audio length and can only shorten it.',
      example: 5,
    }),
    ratio: opt(z.enum(['16:9', '9:16', '1:1'])).meta({ description: 'Aspect ratio, default 16:9. 1:1 is video-b only.', example: '16:9' }),
    resolution: opt(z.enum(['480p', '720p', '768p', '1080p'])).meta({
      description: 'video-a-h3: 480p, 768p (default), 1080p. video-b: 480p (video-b-2.5 only), 720p (default). Not a parameter of video-c-3.1.',
      example: '768p',
    }),
    media: opt(z.array(mediaItemSchema).max(MAX_MEDIA_ITEMS)).meta({ description: 'Reference files; allowed kinds and counts depend on model, resolution, tier and ref_mode.' }),
    ref_mode: opt(z.enum(REF_MODES)).meta({ description: 'video-a-h3 only, default omni. Ignored for video-b.', example: 'omni' }),
    first_frame: opt(z.string()).meta({ description: 'video-a-h3 modes first-last (required) and okay: https URL or base64 image data URI.' }),
    last_frame: opt(z.string()).meta({ description: 'video-a-h3 modes first-last and okay: https URL or base64 image data URI.' }),
    optimize_prompt: opt(z.boolean()).meta({ description: 'video-a-h3 only, default false: rewrite the prompt into a structured format. No extra charge.' }),
    seed: opt(z.number().int().min(0).max(SEED_MAX)).meta({ description: 'video-a-h3 only, 0-2147483647. The same seed does not guarantee identical output.', example: 42 }),
    effort: opt(z.enum(EFFORTS)).meta({ description: 'video-a-h3 only, 480p and 768p: 1x (default), 1.5x, 2x. Not accepted at 1080p.', example: '1x' }),
    tier: opt(z.enum(['official', 'third-party'])).meta({ description: 'video-b only: third-party (default when the model offers it at the resolution) or official.' }),
    variant: opt(z.enum(['video-c-3.1-fast', 'video-c-3.1-components', 'video-c-3.1-pro'])).meta({
      description: 'video-c-3.1 only, default video-c-3.1-fast.',
      example: 'video-c-3.1-fast',
    }),
    client_request_id: opt(clientRequestId),
    callback_url: opt(callbackUrl),
    max_cost_cents: opt(maxCostCents),
  })
  .meta({ id: 'VideoSubmitBody', description: 'POST /api/video/generate body.' });

export const imageSubmitBodySchema = z
  .strictObject({
    model: z.string().meta({ description: `One of ${IMAGE_MODEL_IDS.join(', ')}.`, example: 'image-b-2.5' }),
    prompt: z.string().meta({ description: `${promptDescription} Required.`, example: 'A watercolor lighthouse at dusk' }),
    ratio: opt(z.enum(['1:1', '16:9', '9:16', '4:3', '3:4', '3:2', '2:3', '21:9'])).meta({
      description: 'Aspect ratio, default 1:1; 21:9 only for image-a-5.0, image-d-3-pro-image-preview and image-d-3.1-flash-image-preview.',
      example: '1:1',
    }),
    resolution: opt(z.enum(['1k', '2k', '4k'])).meta({ description: 'image-a-5.0 and image-b-2.5 only, default 1k.', example: '1k' }),
    images: opt(z.array(z.string()).max(MAX_IMAGE_TASK_IMAGES)).meta({
      description: `Reference images: https URLs or base64 image data URIs (jpeg, png, webp); up to ${MAX_IMAGE_TASK_IMAGES}.`,
    }),
    client_request_id: opt(clientRequestId),
    callback_url: opt(callbackUrl),
    max_cost_cents: opt(maxCostCents),
  })
  .meta({ id: 'ImageSubmitBody', description: 'POST /api/image/generate body.' });

export type VideoSubmitBody = z.infer<typeof videoSubmitBodySchema>;
export type ImageSubmitBody = z.infer<typeof imageSubmitBodySchema>;
export type MediaItemBody = z.infer<typeof mediaItemSchema>;
