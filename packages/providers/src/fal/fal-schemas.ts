// zod schemas of the fal queue's answers (providers.md 6). Loose: each app returns its own output JSON.
import { z } from 'zod';
import { wireNumber } from '../wire-values';

export const falSubmitSchema = z.looseObject({
  request_id: z.string().min(1),
  status_url: z.string().nullish(),
  response_url: z.string().nullish(),
  cancel_url: z.string().nullish(),
});

export const falStatusSchema = z.looseObject({
  // IN_QUEUE, IN_PROGRESS, COMPLETED per the docs; FAILED / CANCELED appear in a third-party schema
  // (providers.md 10, item 10), so any string is read and mapped.
  status: z.string(),
  queue_position: wireNumber,
  error: z.unknown().optional(),
  metrics: z.looseObject({ inference_time: wireNumber }).nullish(),
});
export type FalStatus = z.infer<typeof falStatusSchema>;

const fileSchema = z.looseObject({ url: z.string(), content_type: z.string().nullish() });

/** The app's output: video apps answer `{video}`, image apps `{images: [...]}` or `{image}`. */
export const falOutputSchema = z.looseObject({
  video: fileSchema.nullish(),
  image: fileSchema.nullish(),
  images: z.array(fileSchema).nullish(),
  error: z.unknown().optional(),
});

/** Validation and model errors: `{detail: [{loc, msg, type}]}`; infrastructure ones `{detail, error_type}`. */
export const falErrorSchema = z.looseObject({
  detail: z.union([z.string(), z.array(z.looseObject({ msg: z.string().nullish(), type: z.string().nullish() }))]).nullish(),
  error_type: z.string().nullish(),
});

export const falWebhookBodySchema = z.looseObject({ request_id: z.string(), status: z.string().nullish() });

export const jwksSchema = z.object({
  keys: z.array(z.looseObject({ kty: z.string().nullish(), crv: z.string().nullish(), x: z.string().nullish() })),
});
