// zod schemas of Replicate's answers (providers.md 7).
import { z } from 'zod';
import { wireNumber } from '../wire-values';

export const predictionSchema = z.looseObject({
  id: z.string().min(1),
  // starting, processing, succeeded, failed, canceled, aborted; any string is read and mapped.
  status: z.string(),
  model: z.string().nullish(),
  version: z.string().nullish(),
  output: z.unknown().optional(),
  error: z.unknown().optional(),
  metrics: z.looseObject({ predict_time: wireNumber }).nullish(),
});
export type Prediction = z.infer<typeof predictionSchema>;

/** HTTP errors: problem-details style `{detail, title?, status?}` (shape only partly documented). */
export const replicateErrorSchema = z.looseObject({ detail: z.string().nullish(), title: z.string().nullish() });

export const webhookSecretSchema = z.looseObject({ key: z.string().regex(/^whsec_/) });
