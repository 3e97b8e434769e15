// The `replicate` branch of the channel config union (design.md section 4). The protocol's own
// settings beyond the webhook secret are added here by its adapter's author.
import { z } from 'zod';
import { channelBaseSchema } from '../channel-base';

export const replicateChannelSchema = channelBaseSchema.extend({
  protocol: z.literal('replicate'),
  /**
   * The `whsec_...` Standard Webhooks secret (`${ENV}` allowed). When absent the adapter fetches it
   * once from `GET {baseUrl}/webhooks/default/secret` with the channel key.
   */
  webhookSecret: z.string().regex(/^whsec_[A-Za-z0-9+/=]+$/, 'a whsec_... secret').optional(),
});

export type ReplicateChannel = z.infer<typeof replicateChannelSchema>;
