// The `gemini` branch of the channel config union. Placeholder landed by `providers`; the protocol's
// own settings are added here by its adapter's author.
import { z } from 'zod';
import { channelBaseSchema } from '../channel-base';

export const geminiChannelSchema = channelBaseSchema.extend({
  protocol: z.literal('gemini'),
});

export type GeminiChannel = z.infer<typeof geminiChannelSchema>;
