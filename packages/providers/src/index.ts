import type { Config } from '@mediagen/config';
import { ChannelConfig, ChannelConfigError, loadChannelConfigFile } from './channel-config';
import { defaultChannelConfig } from './default-channels';

export * from './adapters';
export * from './channel-base';
export * from './channel-config';
export * from './channel-adapter';
export * from './channel-order';
export * from './channel-probe';
export * from './coverage';
export * from './classify-error';
export * from './default-channels';
export * from './http-jobs/http-jobs-adapter';
export * from './render-price';
export * from './render-request';
export * from './upstream-error';
export * from './upstream-http';

/**
 * The channels of this deployment: the PROVIDER_CONFIG file, or every model on the local simulator.
 * Production without PROVIDER_CONFIG refuses: customers would silently be served by the simulator.
 */
export function loadChannelConfig(
  config: Pick<Config, 'PROVIDER_CONFIG' | 'SIM_PORT' | 'SIM_BASE_URL'> & Partial<Pick<Config, 'NODE_ENV' | 'ALLOW_PRIVATE_MEDIA_URLS'>>,
  env: Record<string, string | undefined> = process.env,
): ChannelConfig {
  if (config.PROVIDER_CONFIG)
    return loadChannelConfigFile(config.PROVIDER_CONFIG, env, { allowPrivate: config.ALLOW_PRIVATE_MEDIA_URLS ?? true, production: config.NODE_ENV === 'production' });
  if (config.NODE_ENV === 'production')
    throw new ChannelConfigError('PROVIDER_CONFIG is required in production (without it every model would be served by the provider simulator)');
  return defaultChannelConfig(config.SIM_BASE_URL ?? `http://127.0.0.1:${config.SIM_PORT}`);
}
export * from './download';
export * from './references';
export * from './callback-token';
export * from './catalog-check';
