// The `replicate` branch of the channel config union (docs/workers-and-channels.md): Replicate predictions.
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
   * false: no webhook is passed to Replicate and none is accepted; renders are followed by polling
   * only. In production a channel with callbacks needs `webhookSecret` (channel-config.ts).
   */
  callbacks: z.boolean().default(true),
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
  /**
   * What Replicate charges, by the channel's model value (`owner/name`, version included when the
   * channel names one), so each attempt's cost (and the margin per model) is known: public models
   * bill their run time (`metrics.predict_time` x `microUsdPerPredictSecond`), official models
   * (google/veo-3.1, bytedance/seedance-2.0) a price per output (`microUsdPerOutput`, the video or
   * image; per-second video prices: multiply by the seconds you sell). Replicate answers run time,
   * never money; without an entry the attempt records usage only.
   */
  prices: z
    .record(z.string().min(1), z.object({
      microUsdPerPredictSecond: z.number().nonnegative().optional(),
      microUsdPerOutput: z.number().int().nonnegative().optional(),
    }))
    .default({}),
});

export type ReplicateChannel = z.infer<typeof replicateChannelSchema>;
