// Which of our models a Gemini channel can serve, checked when the config loads:
// a mapping that cannot be expressed is a startup error naming both, never a render-time surprise.
import { getModel } from '@mediagen/catalog';
import { takesImageSize } from './gemini-request';

/** Aspect ratios every Gemini image model takes (providers.md 3). */
const GEMINI_IMAGE_RATIOS = new Set(['1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '16:9', '21:9']);
const VEO_RATIOS = new Set(['16:9', '9:16']);

/**
 * Model ids Google has shut down on the Gemini API (ai.google.dev/gemini-api/docs/deprecations,
 * read 2026-11-27): a channel mapping one could never render, so it is refused at startup with the
 * replacement, instead of failing every task on its first channel. The date and replacement come
 * from the same page (the Veo previews have no replacement on this protocol).
 */
export const SHUT_DOWN_MODELS: Readonly<Record<string, { on: string; replacement?: string }>> = {
  'gemini-3-pro-image-preview': { on: '2026-06-25', replacement: 'gemini-3-pro-image' },
  'gemini-3.1-flash-image-preview': { on: '2026-06-25', replacement: 'gemini-3.1-flash-image' },
  'gemini-2.5-flash-image-preview': { on: '2026-01-15', replacement: 'gemini-2.5-flash-image' },
  'veo-3.1-generate-preview': { on: '2026-10-22' },
  'veo-3.1-fast-generate-preview': { on: '2026-10-22' },
  'veo-3.1-lite-generate-preview': { on: '2026-10-22' },
};

export function geminiUnsupported(model: string, upstreamModel: string | undefined): string | null {
  const info = getModel(model);
  if (!info) return `${model} is not in the catalog`;
  if (!upstreamModel) return `the channel maps no upstream model for ${model}`;
  const gone = SHUT_DOWN_MODELS[upstreamModel];
  if (gone)
    return `${upstreamModel} was shut down by Google on ${gone.on}${gone.replacement ? `; its replacement is ${gone.replacement}` : '; no replacement on the Gemini API is confirmed'}`;
  if (info.type === 'image') {
    const ratio = info.ratios.find((r) => !GEMINI_IMAGE_RATIOS.has(r));
    if (ratio) return `${model} offers ratio ${ratio}, which Gemini image models do not take`;
    if (info.resolutions.length && !takesImageSize(upstreamModel))
      return `${model} offers resolutions ${info.resolutions.join('/')}, but ${upstreamModel} has no size choice`;
    return null;
  }
  if (info.family !== 'video-c')
    return `${model} needs ${info.family === 'video-a' ? 'audio references, frames and durations up to 15 s' : 'video/audio references and chosen durations'}; the Gemini API serves only Veo (video-c-3.1)`;
  const ratio = info.ratios.find((r) => !VEO_RATIOS.has(r));
  return ratio ? `${model} offers ratio ${ratio}, which Veo does not take` : null;
}
