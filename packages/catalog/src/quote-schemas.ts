// The answer of POST /api/{video|image}/quote (extension, docs/api.md): what the generate call with
// the same body would charge, priced by the same computeCost after the same validation and media
// inspection, with nothing created or charged. The OpenAPI document is built from this schema.
import { z } from 'zod';
import type { Cost, TaskSpec } from './types';

export const quoteResponseSchema = z
  .object({
    costCents: z.number().int().min(0).meta({ description: 'What POST .../generate with this body charges, in cents (rounded up).', example: 4 }),
    billedSeconds: z.number().int().optional().meta({ description: 'Per-second models: the seconds billed (video-b adds the reference videos\' seconds).', example: 5 }),
    outputSeconds: z.number().int().optional().meta({ description: 'Video: the length of the video asked for, in seconds.', example: 5 }),
    model: z.string().meta({ description: 'The model that would run (a legacy alias resolved).', example: 'video-a-h3' }),
    type: z.enum(['video', 'image']),
    variant: z.string().optional().meta({ description: 'video-c-3.1: the variant priced.', example: 'video-c-3.1-fast' }),
  })
  .meta({ id: 'QuoteResponse', description: 'The price of a generate body; no task was created and nothing was charged.' });

export type QuoteResponse = z.infer<typeof quoteResponseSchema>;

/** The quote body of a validated spec and its cost. */
export function quoteBody(spec: TaskSpec, cost: Cost): QuoteResponse {
  return {
    costCents: cost.costCents,
    ...(cost.billedSeconds !== null ? { billedSeconds: cost.billedSeconds } : {}),
    ...(cost.outputSeconds !== null ? { outputSeconds: cost.outputSeconds } : {}),
    model: spec.model,
    type: spec.type,
    ...(spec.type === 'video' && spec.variant ? { variant: spec.variant } : {}),
  };
}
