// The `fal` branch of the channel config union (docs/workers-and-channels.md): the fal.ai queue API.
import { z } from 'zod';
import { channelBaseSchema } from '../channel-base';

/** Where fal publishes its webhook keys. Public verifiers also use rest.fal.ai (providers.md 6): a setting. */
export const DEFAULT_FAL_JWKS_URL = 'https://rest.alpha.fal.ai/.well-known/jwks.json';

/** fal's platform API: model metadata by endpoint id (docs.fal.ai/reference, Platform APIs). */
export const DEFAULT_FAL_PLATFORM_URL = 'https://api.fal.ai/v1';

export const falChannelSchema = channelBaseSchema.extend({
  protocol: z.literal('fal'),
  /** Where fal publishes the ED25519 keys its webhooks are signed with (cached up to 24 h). */
  webhookJwksUrl: z.string().url().default(DEFAULT_FAL_JWKS_URL),
  /** fal's platform API (model lookup; default DEFAULT_FAL_PLATFORM_URL), which the channel check asks whether an app exists (fal-probe.ts). */
  platformUrl: z.string().url().optional(),
  /**
   * What fal charges, by the channel's `models` value (the app path, sub-path included, e.g.
   * `fal-ai/veo3.1/fast`), so each attempt's cost (and the margin per model) is known. fal bills per
   * app: most video apps per second of video (`microUsdPerOutputSecond` x the seconds rendered),
   * image apps per image (`microUsdPerOutput`), some per GPU second (`microUsdPerInferenceSecond` x
   * the `metrics.inference_time` fal reports). fal answers run time, never money; without an entry
   * the attempt records usage only.
   */
  prices: z
    .record(z.string().min(1), z.object({
      microUsdPerOutput: z.number().int().nonnegative().optional(),
      microUsdPerOutputSecond: z.number().nonnegative().optional(),
      microUsdPerInferenceSecond: z.number().nonnegative().optional(),
    }))
    .default({}),
});

export type FalPrice = FalChannel['prices'][string];

export type FalChannel = z.infer<typeof falChannelSchema>;
