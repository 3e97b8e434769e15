import type { ChannelAdapter } from './channel-adapter';
import type { ChannelConfig } from './channel-config';
import { createHttpJobsAdapter } from './http-jobs-adapter';

/** One adapter per configured channel, by channel id. */
export function createAdapters(config: ChannelConfig): Map<string, ChannelAdapter> {
  const adapters = new Map<string, ChannelAdapter>();
  for (const channel of config.channels) {
    switch (channel.protocol) {
      case 'http-jobs':
        adapters.set(channel.id, createHttpJobsAdapter(channel));
        break;
    }
  }
  return adapters;
}
