// The `replicate` branch of the channel config union (design.md section 4): Replicate predictions.
import { z } from 'zod';
import { channelBaseSchema } from '../channel-base';

export const replicateChannelSchema = channelBaseSchema.extend({
  protocol: z.literal('replicate'),
  /**
   * The `whsec_...` Standard Webhooks secret (`${ENV}` allowed). When absent the adapter fetches it
   * once from `GET {baseUrl}/webhooks/default/secret` with the channel key.
   */
  webhookSecret: z.string().regex(/^whsec_[A-Za-z0-9+/=]+$/, 'a whsec_... secret').optional(),
  /**
   * `Prefer: wait=N` for image tasks: Replicate holds the submit open until the prediction is done
   * or N seconds pass, so a fast image model answers in the submit (no poll). Off when absent;
   * never used for video, where it would only hold a worker slot for minutes.
   */
  preferWaitSeconds: z.number().int().min(1).max(60).optional(),
  /**
   * `Cancel-After` on every prediction: Replicate stops (and does not bill) a render we would no
   * longer collect. Set it near the task timeout; absent: no upstream deadline.
   */
  cancelAfterSeconds: z.number().int().min(5).optional(),
  /**
   * Orphan search (findOrphan): a resumed attempt whose create answer was lost looks for its
   * prediction in `GET {baseUrl}/predictions` (by our webhook URL when listed, else model and input)
   * before creating another. Off: a lost answer means a blind resubmit.
   */
  orphanSearch: z.boolean().default(true),
});

export type ReplicateChannel = z.infer<typeof replicateChannelSchema>;
