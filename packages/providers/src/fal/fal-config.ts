// The `fal` branch of the channel config union (design.md section 4). The protocol's own settings
// beyond the callback key set are added here by its adapter's author.
import { z } from 'zod';
import { channelBaseSchema } from '../channel-base';

export const DEFAULT_FAL_JWKS_URL = 'https://rest.alpha.fal.ai/.well-known/jwks.json';

export const falChannelSchema = channelBaseSchema.extend({
  protocol: z.literal('fal'),
  /** Where fal publishes the ED25519 keys its webhooks are signed with. */
  webhookJwksUrl: z.string().url().default(DEFAULT_FAL_JWKS_URL),
});

export type FalChannel = z.infer<typeof falChannelSchema>;
