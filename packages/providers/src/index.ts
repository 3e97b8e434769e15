import type { Config } from '@mediagen/config';
import { ChannelConfig, loadChannelConfigFile } from './channel-config';
import { defaultChannelConfig } from './default-channels';

export * from './channel-config';
export * from './channel-adapter';
export * from './channel-order';
export * from './classify-error';
export * from './create-adapters';
export * from './default-channels';
export * from './http-jobs-adapter';
export * from './render-request';
export * from './upstream-error';

/** The channels of this deployment: the PROVIDER_CONFIG file, or every model on the local simulator. */
export function loadChannelConfig(
  config: Pick<Config, 'PROVIDER_CONFIG' | 'SIM_PORT' | 'SIM_BASE_URL'>,
  env: Record<string, string | undefined> = process.env,
): ChannelConfig {
  if (config.PROVIDER_CONFIG) return loadChannelConfigFile(config.PROVIDER_CONFIG, env);
  return defaultChannelConfig(config.SIM_BASE_URL ?? `http://127.0.0.1:${config.SIM_PORT}`);
}
