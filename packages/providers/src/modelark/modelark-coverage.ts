// What a ModelArk channel renders of each model it maps (routing per task, coverage.ts), read from
// the upstream model id: a Seedance version's longest video and reference counts
// (seedance-limits.ts), a Seedream version's reference images and the ratios and resolutions this
// adapter has sizes for (seedream-sizes.ts; a size outside a version's range is moved to the nearest
// one it takes, so every sold resolution is rendered). A smaller version serves the part it can; an id no
// pattern recognises is the operator's call and is taken as rendering everything sold.
import { getModel } from '@mediagen/catalog';
import type { Coverage } from '../coverage';
import { SCALE, seedreamVersion, SIZES_2K } from './seedream-sizes';
import { seedanceLimits } from './seedance-limits';

/** Why a ModelArk channel can never serve this model under this upstream id (a start-up error), or null. */
export function modelarkMappingError(model: string, upstreamModel?: string): string | null {
  const info = getModel(model);
  if (!info) return `${model} is not a model of the catalog`;
  if (info.type === 'image')
    return upstreamModel && /seedance/i.test(upstreamModel) ? `${upstreamModel} is a Seedance video model; ${info.id} is an image model (Seedream, /images/generations)` : null;
  switch (info.family) {
    case 'video-b':
      return upstreamModel && /seedream/i.test(upstreamModel) ? `${upstreamModel} is a Seedream image model; ${model} is a video model (Seedance, /contents/generations/tasks)` : null;
    case 'video-a':
      return `${model} has ref_mode lip-sync, effort tiers and optimize_prompt, which Seedance has no parameter for`;
    default:
      return `${model} variants are Veo models with their own reference rules; ModelArk serves Seedance and Seedream`;
  }
}

export function modelarkCoverage(model: string, upstreamModel?: string): Coverage {
  const info = getModel(model);
  if (!info || !upstreamModel) return {};
  const c: Coverage = {};
  if (info.type === 'image') {
    const ratios = info.ratios.filter((r) => SIZES_2K[r]);
    if (ratios.length < info.ratios.length) c.ratios = ratios;
    const resolutions = info.resolutions.filter((r) => SCALE[r] !== undefined);
    if (resolutions.length < info.resolutions.length) c.resolutions = resolutions;
    const cap = seedreamVersion(upstreamModel)?.maxRefs;
    if (cap !== undefined && cap < info.maxImages) c.maxRefs = { image: cap };
    return c;
  }
  const limits = seedanceLimits(upstreamModel);
  if (!limits || !info.offers?.length) return c;
  const sold = Math.max(...info.offers.map((o) => o.duration.max));
  if (sold > limits.maxSeconds) c.seconds = { min: Math.min(...info.offers.map((o) => o.duration.min)), max: limits.maxSeconds };
  const refs: Coverage['maxRefs'] = {};
  for (const k of ['image', 'video', 'audio'] as const) {
    const cap = limits.refs[k];
    if (cap !== null && Math.max(...info.offers.map((o) => o.maxRefs[k])) > cap) refs[k] = cap;
  }
  if (Object.keys(refs).length) c.maxRefs = refs;
  return c;
}
