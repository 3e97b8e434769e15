// The adapter registry: one factory per protocol of the channel config union. `satisfies` over a
// mapped type makes a protocol without a factory (or a factory for the wrong channel type) a
// compile error; test/adapters.test.ts checks the same against the schema at run time.
import type { ChannelAdapter } from './channel-adapter';
import type { ChannelConfig, ChannelOf, Protocol } from './channel-config';
import { createFalAdapter } from './fal/fal-adapter';
import { createGeminiAdapter } from './gemini/gemini-adapter';
import { createHttpJobsAdapter } from './http-jobs/http-jobs-adapter';
import { createMinimaxAdapter } from './minimax/minimax-adapter';
import { createModelarkAdapter } from './modelark/modelark-adapter';
import { createReplicateAdapter } from './replicate/replicate-adapter';

export type AdapterFactory<P extends Protocol> = (channel: ChannelOf<P>) => ChannelAdapter;

export const adapterFactories = {
  modelark: createModelarkAdapter,
  minimax: createMinimaxAdapter,
  gemini: createGeminiAdapter,
  fal: createFalAdapter,
  replicate: createReplicateAdapter,
  'http-jobs': createHttpJobsAdapter,
} satisfies { [P in Protocol]: AdapterFactory<P> };

/** The adapter for one channel, by its protocol. */
export function createAdapter<P extends Protocol>(channel: ChannelOf<P>): ChannelAdapter {
  const factory = adapterFactories[channel.protocol] as AdapterFactory<P>;
  return factory(channel);
}

/** One adapter per configured channel (disabled ones included: their running renders finish), by channel id. */
export function createAdapters(config: ChannelConfig): Map<string, ChannelAdapter> {
  return new Map(config.channels.map((c) => [c.id, createAdapter(c)]));
}
