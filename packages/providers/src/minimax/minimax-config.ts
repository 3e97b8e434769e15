// The `minimax` branch of the channel config union: MiniMax video v2, base URL without a version
// path (`https://api.minimax.io`, `https://api.minimaxi.com`; the paths carry /v2 and /v1).
// What the upstream renders is this channel's declaration, checked when the config loads. First-party
// MiniMax-H3 (MiniMax-AI/cli src/video/v2.ts and vercel/ai packages/minimax, read 2026-11-27) renders
// 2K only and 4-15 s (CLI; vercel/ai: 5-15 s): every resolution we sell is rendered at 2K (a larger
// video than sold) and a shorter duration at the upstream's minimum (a longer one): docs/protocol-minimax.md.
import { z } from 'zod';
import { channelBaseSchema } from '../channel-base';

export const MINIMAX_RESOLUTIONS = ['480p', '768p', '1080p'] as const;

export const minimaxChannelSchema = channelBaseSchema.extend({
  protocol: z.literal('minimax'),
  /**
   * Our resolution -> the upstream's `resolution` value. A resolution missing here cannot be served
   * by this channel, and a model that offers it is refused at startup. Default: first-party H3,
   * which takes `2K` only ("MiniMax-H3 currently only supports 2K resolution"): 480p, 768p and 1080p
   * are all rendered at 2K, a larger video than sold (nothing here can scale a video down).
   */
  resolutions: z
    .partialRecord(z.enum(MINIMAX_RESOLUTIONS), z.string().min(1))
    .default({ '480p': '2K', '768p': '2K', '1080p': '2K' }),
  /**
   * Durations (whole seconds) the upstream model renders; first-party H3 takes 4-15 s (its CLI;
   * vercel/ai says 5-15). A task sold shorter than `min` is rendered at `min` (a longer video than
   * sold, billed as sold); a model selling more than `max` is refused at startup.
   */
  durations: z.object({ min: z.number().int().min(1), max: z.number().int().min(1) }).default({ min: 4, max: 15 }),
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
   * (`{"MiniMax-H3": {"2K": 20000}}`), so each attempt's cost (and the margin per model) is known
   * from `usage.output_seconds`. MiniMax answers seconds, never money.
   */
  prices: z.record(z.string().min(1), z.record(z.string().min(1), z.number().int().nonnegative())).default({}),
});

export type MinimaxChannel = z.infer<typeof minimaxChannelSchema>;
