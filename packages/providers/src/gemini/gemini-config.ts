// The `gemini` branch of the channel config union (docs/workers-and-channels.md): Google Gemini API, Veo
// through long-running operations and Gemini image models through generateContent.
import { z } from 'zod';
import { channelBaseSchema } from '../channel-base';

export const geminiChannelSchema = channelBaseSchema.extend({
  protocol: z.literal('gemini'),
  /**
   * Veo `referenceImages[].referenceType`: the REST docs write `asset`, js-genai's enum `ASSET`
   * (providers.md 2.1 disagree), so it is a channel setting; `asset` follows the REST docs.
   */
  veoReferenceType: z.enum(['asset', 'ASSET']).default('asset'),
  /**
   * What Google charges, by upstream model name, so each attempt's cost (and the margin per model)
   * is known. Gemini image models bill tokens, which the answer reports (`usageMetadata`: output
   * tokens x `microUsdPerMillionOutputTokens`, prompt tokens x `microUsdPerMillionInputTokens`); Veo
   * bills seconds of video, which its operation does not report (`microUsdPerOutputSecond` x the
   * seconds rendered); `microUsdPerOutput` prices a file. Google answers usage, never money; without
   * an entry the attempt records usage only.
   */
  prices: z
    .record(z.string().min(1), z.object({
      microUsdPerMillionInputTokens: z.number().nonnegative().optional(),
      microUsdPerMillionOutputTokens: z.number().nonnegative().optional(),
      microUsdPerOutputSecond: z.number().nonnegative().optional(),
      microUsdPerOutput: z.number().int().nonnegative().optional(),
    }))
    .default({}),
});

export type GeminiPrice = GeminiChannel['prices'][string];

export type GeminiChannel = z.infer<typeof geminiChannelSchema>;
