// config/providers.example.json loads as a production PROVIDER_CONFIG would (https only, keys from
// the environment) and serves every model, tier and variant of the catalog with channels that can
// serve them; a config that maps a model to a channel that cannot serve it, or leaves one
// unserved, is refused at startup naming the model and the channel.
import path from 'node:path';
import { parseSoldModels } from '@mediagen/catalog';
import { assertServesCatalog, ChannelConfigError, checkAgainstCatalog, createAdapters, loadChannelConfig, loadChannelConfigFile, parseChannelConfig } from '../src';

const EXAMPLE = path.resolve(__dirname, '../../../config/providers.example.json');
const env = { MINIMAX_API_KEY: 'mm', FAL_KEY: 'fal', REPLICATE_API_TOKEN: 'r8', REPLICATE_WEBHOOK_SECRET: 'whsec_cmVwbGljYXRlLXdlYmhvb2stc2VjcmV0', ARK_API_KEY: 'ark', GEMINI_API_KEY: 'gem' };

it('the example production config serves the whole catalog on real upstreams', () => {
  const config = loadChannelConfigFile(EXAMPLE, env, { allowPrivate: false, production: true });
  const adapters = createAdapters(config);
  try {
    expect(checkAgainstCatalog(config, adapters)).toEqual({ errors: [], unserved: [] });
    expect(() => assertServesCatalog(config, adapters, { production: true })).not.toThrow();
    expect(new Set(config.channels.map((c) => c.protocol))).toEqual(new Set(['modelark', 'minimax', 'gemini', 'fal', 'replicate']));
    expect(config.channels.every((c) => c.baseUrl.startsWith('https://'))).toBe(true);
  } finally {
    for (const a of adapters.values()) a.close();
  }
});

it('names the model and the channel when a channel can never serve a model it maps', () => {
  const config = parseChannelConfig({
    channels: [{ id: 'first-party-h3', protocol: 'minimax', baseUrl: 'https://api.minimax.io', apiKey: 'k', costOrder: 1, models: { 'video-b-2.0-mini': 'MiniMax-H3' } }],
  }, {});
  const adapters = createAdapters(config);
  expect(() => assertServesCatalog(config, adapters, { production: false })).toThrow(/channel first-party-h3 \(minimax\) cannot serve video-b-2.0-mini \(tier official\): .*video-a-h3 only/);
  for (const a of adapters.values()) a.close();
});

it('refuses unserved models in production and only reports them elsewhere', () => {
  const config = parseChannelConfig({ channels: [{ id: 'ark', protocol: 'modelark', baseUrl: 'https://ark.example/api/v3', apiKey: 'k', costOrder: 1, models: { 'image-a-5.0': 'seedream-5-0-260128' } }] }, {});
  const adapters = createAdapters(config);
  expect(() => assertServesCatalog(config, adapters, { production: true })).toThrow(/no enabled channel can serve video-b-2.5 \(tier third-party\)[\s\S]*video-c-3.1 \(variant video-c-3.1-pro\)/);
  expect(assertServesCatalog(config, adapters, { production: false })).toContain('no enabled channel can serve video-a-h3 (channels looked at: none)');
  for (const a of adapters.values()) a.close();
});

it('refuses to start in production without PROVIDER_CONFIG (customers would be served by the simulator)', () => {
  expect(() => loadChannelConfig({ NODE_ENV: 'production', SIM_PORT: 4010 })).toThrow(ChannelConfigError);
  expect(() => loadChannelConfig({ NODE_ENV: 'production', SIM_PORT: 4010 })).toThrow(/PROVIDER_CONFIG is required in production/);
  expect(loadChannelConfig({ NODE_ENV: 'development', SIM_PORT: 4010 }).channels.length).toBeGreaterThan(0);
});

it('a production config with two image channels starts when SOLD_MODELS names what they serve', () => {
  const config = parseChannelConfig({
    channels: [
      { id: 'gemini', protocol: 'gemini', baseUrl: 'https://generativelanguage.googleapis.com/v1beta', apiKey: 'k', costOrder: 1, models: { 'image-d-2.5-flash-image': 'gemini-2.5-flash-image' } },
      { id: 'ark', protocol: 'modelark', baseUrl: 'https://ark.example/api/v3', apiKey: 'k', costOrder: 1, models: { 'image-b-2.5': 'seedream-4-0-250828' } },
    ],
  }, {});
  const adapters = createAdapters(config);
  try {
    expect(() => assertServesCatalog(config, adapters, { production: true })).toThrow(/no enabled channel can serve video-a-h3/);
    expect(assertServesCatalog(config, adapters, { production: true, sold: parseSoldModels('image-b-2.5,image-d-2.5-flash-image') })).toEqual([]);
    // Selling a model no channel serves still stops the start, naming it.
    expect(() => assertServesCatalog(config, adapters, { production: true, sold: parseSoldModels('image-b-2.5,image-a-5.0') })).toThrow(/The channel config does not fit the catalog:\n  no enabled channel can serve image-a-5.0 \(channels looked at: none\)$/);
  } finally {
    for (const a of adapters.values()) a.close();
  }
});
