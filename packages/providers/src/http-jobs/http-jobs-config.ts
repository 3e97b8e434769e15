// The `http-jobs` branch of the channel config union: the provider simulator's own protocol, and
// the protocol of a channel file entry that names none (files written before protocols existed).
import { z } from 'zod';
import { channelBaseSchema } from '../channel-base';

export const httpJobsChannelSchema = channelBaseSchema.extend({
  protocol: z.literal('http-jobs'),
});

export type HttpJobsChannel = z.infer<typeof httpJobsChannelSchema>;
