// The channels used when PROVIDER_CONFIG is not set: every model is served by the provider
// simulator, each channel under its own path so the simulator can act as several providers.
// video-b models get two or three channels, cheapest first, so fallback really happens.
import { ChannelConfig, parseChannelConfig } from './channel-config';

/** The key every default channel sends; the simulator accepts the keys of the channels it serves. */
export const DEFAULT_SIM_API_KEY = 'sim-dev-key';

const VIDEO_B = ['video-b-2.5', 'video-b-2.0', 'video-b-2.0-mini'] as const;
const IMAGE_B_D = ['image-b-2.5', 'image-b-2', 'image-d-3-pro-image-preview', 'image-d-3.1-flash-image-preview', 'image-d-2.5-flash-image'];
const upstream = (ids: readonly string[]): Record<string, string> => Object.fromEntries(ids.map((id) => [id, `sim/${id}`]));

export function defaultChannelConfig(simBaseUrl: string): ChannelConfig {
  const base = simBaseUrl.replace(/\/+$/, '');
  const fast = { firstMs: 250, minMs: 500, maxMs: 30_000 };
  const ch = (id: string, extra: Record<string, unknown>) => ({ id, baseUrl: `${base}/ch/${id}`, apiKey: DEFAULT_SIM_API_KEY, poll: fast, maxInFlight: 20_000, ...extra });
  return parseChannelConfig({
    channels: [
      // Spec 7.2: video-a-h3 reports content violations explicitly.
      ch('sim-video-a', { costOrder: 10, models: upstream(['video-a-h3']), reportsViolations: true }),
      // video-b: the low-cost channel serves every video-b model (for `official` it is the cheaper
      // channel tried first), a second low-cost channel backs up third-party, and the official one.
      ch('sim-video-b-lowcost', { tier: 'third-party', costOrder: 10, models: upstream(VIDEO_B) }),
      ch('sim-video-b-backup', { tier: 'third-party', costOrder: 20, models: upstream(['video-b-2.5', 'video-b-2.0']) }),
      ch('sim-video-b-official', { tier: 'official', costOrder: 30, models: upstream(['video-b-2.5', 'video-b-2.0-mini']) }),
      ch('sim-video-c', { costOrder: 10, models: upstream(['video-c-3.1']) }),
      ch('sim-image-main', { costOrder: 10, models: upstream(['image-a-5.0', 'image-c-2.1']), poll: { firstMs: 100, minMs: 250, maxMs: 10_000 } }),
      // Spec 7.2: "the image-b and image-d models on one image channel" report violations.
      ch('sim-image-bd', { costOrder: 10, models: upstream(IMAGE_B_D), reportsViolations: true, poll: { firstMs: 100, minMs: 250, maxMs: 10_000 } }),
    ],
  });
}
