// The `gemini` branch of the channel config union (design.md section 4): Google Gemini API, Veo
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
});

export type GeminiChannel = z.infer<typeof geminiChannelSchema>;
