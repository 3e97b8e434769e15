// The `modelark` branch of the channel config union: BytePlus ModelArk / Volcengine Ark, base URL
// with its version path (`https://ark.ap-southeast.bytepluses.com/api/v3`,
// `https://ark.cn-beijing.volces.com/api/v3`). Settings where the upstream's documents leave a
// choice to us; defaults are what a relay reselling the render wants.
import { z } from 'zod';
import { channelBaseSchema } from '../channel-base';

export const modelarkChannelSchema = channelBaseSchema.extend({
  protocol: z.literal('modelark'),
  /** `watermark` on Seedance and Seedream; the upstream's own default is true (a visible mark). */
  watermark: z.boolean().default(false),
  /**
   * Seedance `generate_audio`. Its default differs by model (true on 2.0 per two hosts, optional on
   * 1.5: providers.md §10.2), so unset leaves it to the model.
   */
  generateAudio: z.boolean().optional(),
  /** Seedance `service_tier`: `flex` is offline, cheaper and slower. Unset: the upstream's default. */
  serviceTier: z.enum(['default', 'flex']).optional(),
  /** Seedance `execution_expires_after` in seconds (3600..259200); past it the task is `expired`. */
  executionExpiresAfterS: z.number().int().min(3600).max(259_200).optional(),
  /**
   * Seedream `response_format`: `url` (a 24 h link fetched through the download path) or
   * `b64_json` (bytes inline in the answer, no second fetch; mind maxResponseBytes).
   */
  imageResponseFormat: z.enum(['url', 'b64_json']).default('url'),
  /**
   * Orphan search (findOrphan): a Seedance request without a client seed carries a seed derived
   * from the attempt, and a resumed attempt whose submit answer was lost looks for its task in
   * `GET /contents/generations/tasks?filter.model=...` (the list echoes each task's seed) before
   * submitting again. Off: no seed is added and a lost answer means a blind resubmit.
   */
  orphanSearch: z.boolean().default(true),
  /**
   * What the upstream charges, by upstream model name, so each attempt's cost (and the margin per
   * model) is known: Seedance bills tokens (`usage.completion_tokens`), Seedream images. ModelArk
   * answers usage, never money; without an entry the attempt records usage only.
   */
  prices: z
    .record(z.string().min(1), z.object({
      microUsdPerMillionTokens: z.number().int().nonnegative().optional(),
      microUsdPerImage: z.number().int().nonnegative().optional(),
    }))
    .default({}),
});

export type ModelarkChannel = z.infer<typeof modelarkChannelSchema>;
