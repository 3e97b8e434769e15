// The `fal` branch of the channel config union (design.md section 4): the fal.ai queue API.
import { z } from 'zod';
import { channelBaseSchema } from '../channel-base';

/** Where fal publishes its webhook keys. Public verifiers also use rest.fal.ai (providers.md 6): a setting. */
export const DEFAULT_FAL_JWKS_URL = 'https://rest.alpha.fal.ai/.well-known/jwks.json';

export const falChannelSchema = channelBaseSchema.extend({
  protocol: z.literal('fal'),
  /** Where fal publishes the ED25519 keys its webhooks are signed with (cached up to 24 h). */
  webhookJwksUrl: z.string().url().default(DEFAULT_FAL_JWKS_URL),
});

export type FalChannel = z.infer<typeof falChannelSchema>;
