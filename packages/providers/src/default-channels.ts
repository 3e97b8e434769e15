// The channels used when PROVIDER_CONFIG is not set (development and tests only; production
// refuses to start without a file): every model is served over the wire protocol of its real
// vendor, pointed at the provider simulator, which speaks all of them on one port (MiniMax for
// video-a, ModelArk for video-b and the Seedream images, Gemini for Veo and the Gemini images;
// image-c-2.1 has no known vendor and goes to a generic host, Replicate). So `npm start`, the e2e
// tests and the benchmark run the real adapters. Each channel has its own key: the simulator tells
// the channels of one protocol apart by it. video-b models get two or three channels, cheapest
// first, so fallback really happens.
import { ChannelConfig, parseChannelConfig } from './channel-config';

/** Every default channel's key is `${DEFAULT_SIM_API_KEY}-${channelId}`. */
export const DEFAULT_SIM_API_KEY = 'sim-dev-key';

const SEEDANCE: Record<string, string> = {
  'video-b-2.5': 'dreamina-seedance-2-5-260628',
  'video-b-2.0': 'dreamina-seedance-2-0-260128',
  'video-b-2.0-mini': 'dreamina-seedance-2-0-mini-260615',
};
const pick = (all: Record<string, string>, ids: readonly string[]) => Object.fromEntries(ids.map((id) => [id, all[id]]));

export function defaultChannelConfig(simBaseUrl: string): ChannelConfig {
  const sim = simBaseUrl.replace(/\/+$/, '');
  const fast = { firstMs: 250, minMs: 500, maxMs: 30_000 };
  const imagePoll = { firstMs: 100, minMs: 250, maxMs: 10_000 };
  // A video submit is answered as soon as the render is queued (the simulator: at once). A short
  // deadline keeps short the wait of a resumed attempt whose submit may still be open
  // (docs/providers.md, "No double render"). Image submits hold the render: the default 30 s.
  const videoSubmit = { timeouts: { submitMs: 10_000 } };
  const ch = (id: string, protocol: string, baseUrl: string, extra: Record<string, unknown>) => ({
    id, protocol, baseUrl, apiKey: `${DEFAULT_SIM_API_KEY}-${id}`, poll: fast, maxInFlight: 20_000, ...extra,
  });
  const ark = `${sim}/modelark/api/v3`;
  const gemini = `${sim}/gemini/v1beta`;
  return parseChannelConfig({
    channels: [
      // video-a-h3 reports content violations explicitly.
      ch('sim-video-a', 'minimax', `${sim}/minimax`, {
        costOrder: 10, models: { 'video-a-h3': 'MiniMax-H3' }, effortModels: { '1.5x': 'MiniMax-H3', '2x': 'MiniMax-H3-Max' }, reportsViolations: true, ...videoSubmit,
      }),
      // video-b: the low-cost channel serves every video-b model (for `official` it is the cheaper
      // channel tried first), a second low-cost channel backs up third-party, and the official one.
      ch('sim-video-b-lowcost', 'modelark', ark, { tier: 'third-party', costOrder: 10, models: SEEDANCE, ...videoSubmit }),
      ch('sim-video-b-backup', 'modelark', ark, { tier: 'third-party', costOrder: 20, models: pick(SEEDANCE, ['video-b-2.5', 'video-b-2.0']), ...videoSubmit }),
      ch('sim-video-b-official', 'modelark', ark, { tier: 'official', costOrder: 30, models: pick(SEEDANCE, ['video-b-2.5', 'video-b-2.0-mini']), ...videoSubmit }),
      ch('sim-video-c', 'gemini', gemini, {
        costOrder: 10, ...videoSubmit,
        models: { 'video-c-3.1-fast': 'veo-3.1-fast-generate-001', 'video-c-3.1-pro': 'veo-3.1-generate-001', 'video-c-3.1-components': 'veo-3.1-generate-001' },
      }),
      ch('sim-image-main', 'modelark', ark, { costOrder: 10, models: { 'image-a-5.0': 'seedream-5-0-260128' }, poll: imagePoll }),
      // Answers at once: Replicate's `Prefer: wait` holds the submit until the image is done.
      ch('sim-image-c', 'replicate', `${sim}/replicate/v1`, { costOrder: 10, models: { 'image-c-2.1': 'black-forest-labs/flux-2-pro' }, preferWaitSeconds: 10, poll: imagePoll }),
      // Content violations are reported by "the image-b and image-d models on one image channel" report violations; they
      // are two vendors (Seedream, Gemini), so two channels here, both reporting.
      ch('sim-image-b', 'modelark', ark, { costOrder: 10, models: { 'image-b-2.5': 'seedream-4-5-251128', 'image-b-2': 'seedream-4-0-250828' }, reportsViolations: true, poll: imagePoll }),
      ch('sim-image-d', 'gemini', gemini, {
        costOrder: 10, reportsViolations: true, poll: imagePoll,
        models: {
          'image-d-3-pro-image-preview': 'gemini-3-pro-image',
          'image-d-3.1-flash-image-preview': 'gemini-3.1-flash-image',
          'image-d-2.5-flash-image': 'gemini-2.5-flash-image',
        },
      }),
    ],
  });
}
