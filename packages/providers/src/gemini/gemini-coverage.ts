// Which of our models a Gemini channel can map (start-up errors) and what it renders of each
// (routing per task, coverage.ts): the aspect ratios Gemini image models and Veo take, and image
// resolutions only where the upstream model has a size choice.
import { getModel } from '@mediagen/catalog';
import type { Coverage } from '../coverage';
import { SHUT_DOWN_MODELS } from './gemini-capabilities';
import { takesImageSize } from './gemini-request';

/** Aspect ratios every Gemini image model takes (providers.md 3). */
const GEMINI_IMAGE_RATIOS = ['1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '16:9', '21:9'];
const VEO_RATIOS = ['16:9', '9:16'];

export function geminiMappingError(model: string, upstreamModel: string | undefined): string | null {
  const info = getModel(model);
  if (!info) return `${model} is not in the catalog`;
  if (!upstreamModel) return `the channel maps no upstream model for ${model}`;
  // An id Google has shut down can never render: refused at start, with its replacement.
  const gone = SHUT_DOWN_MODELS[upstreamModel];
  if (gone)
    return `${upstreamModel} was shut down by Google on ${gone.on}${gone.replacement ? `; its replacement is ${gone.replacement}` : '; no replacement on the Gemini API is confirmed'}`;
  if (info.type === 'video' && info.family !== 'video-c')
    return `${model} needs ${info.family === 'video-a' ? 'audio references, frames and durations up to 15 s' : 'video/audio references and chosen durations'}; the Gemini API serves only Veo (video-c-3.1)`;
  return null;
}

export function geminiCoverage(model: string, upstreamModel: string | undefined): Coverage {
  const info = getModel(model);
  if (!info || !upstreamModel) return {};
  const c: Coverage = {};
  const taken = info.type === 'image' ? GEMINI_IMAGE_RATIOS : VEO_RATIOS;
  const ratios = info.ratios.filter((r) => taken.includes(r));
  if (ratios.length < info.ratios.length) c.ratios = ratios;
  if (info.type === 'image' && info.resolutions.length && !takesImageSize(upstreamModel)) c.resolutions = [];
  return c;
}
