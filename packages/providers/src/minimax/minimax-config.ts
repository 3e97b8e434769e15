// The `minimax` branch of the channel config union: MiniMax video v2, base URL without a version
// path (`https://api.minimax.io`, `https://api.minimaxi.com`; the paths carry /v2 and /v1).
// Which of video-a-h3's modes the upstream model can serve is this channel's declaration, checked
// when the config loads (providers.md corrections 3): first-party `MiniMax-H3` takes 768P and 2K
// and 5-15 s, `MiniMax-H3-Max` 480P and 768P; resellers sell 480p/768p/1080p.
import { z } from 'zod';
import { channelBaseSchema } from '../channel-base';

export const MINIMAX_RESOLUTIONS = ['480p', '768p', '1080p'] as const;

export const minimaxChannelSchema = channelBaseSchema.extend({
  protocol: z.literal('minimax'),
  /**
   * Our resolution -> the upstream's `resolution` value. A resolution missing here cannot be served
   * by this channel, and a model that offers it is refused at startup. Default: the reseller tiers,
   * which are ours (and the simulator's).
   */
  resolutions: z
    .partialRecord(z.enum(MINIMAX_RESOLUTIONS), z.string().min(1))
    .default({ '480p': '480P', '768p': '768P', '1080p': '1080P' }),
  /** Durations (whole seconds) the upstream model renders; first-party H3 is 5-15 s. */
  durations: z.object({ min: z.number().int().min(1), max: z.number().int().min(1) }).default({ min: 1, max: 15 }),
  /**
   * Our `effort` tiers above 1x -> the upstream model that renders them (e.g. `{"2x": "MiniMax-H3-Max"}`).
   * MiniMax has no effort parameter (providers.md §5): without an entry the tier cannot be served
   * and video-a-h3 is refused at startup. `"1x"` is the channel's `models` entry.
   */
  effortModels: z.partialRecord(z.enum(['1.5x', '2x']), z.string().min(1)).default({}),
  /** `aigc_watermark` (the upstream's default is false). */
  watermark: z.boolean().default(false),
  /**
   * Retired: was "send v1's `prompt_optimizer` for optimize_prompt"; v2 documents no such field and
   * the worker now rewrites the prompt itself (docs/prompt-format.md). Still accepted so existing
   * channel files load; ignored.
   */
  promptOptimizer: z.boolean().default(false),
  /**
   * `DELETE /v2/video_generation/{id}` on task timeout. Seen only in MiniMax's own CLI tests
   * (unverified), so a channel can turn it off; a 404/405 answer is ignored either way.
   */
  cancel: z.boolean().default(true),
  /**
   * What the upstream charges per output second, by upstream model and upstream resolution
   * (`{"MiniMax-H3": {"768P": 20000}}`), so each attempt's cost (and the margin per model) is known
   * from `usage.output_seconds`. MiniMax answers seconds, never money.
   */
  prices: z.record(z.string().min(1), z.record(z.string().min(1), z.number().int().nonnegative())).default({}),
});

export type MinimaxChannel = z.infer<typeof minimaxChannelSchema>;
