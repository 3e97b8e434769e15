// Which of our models a Replicate channel can map (start-up errors) and what it renders of each
// (routing per task, coverage.ts). An image model takes its own number of reference images, ratios
// and sizes (replicate-image-models.ts). google/veo-3.1 takes reference images only at 16:9, so the
// Components variant is served there at 16:9 only; a hosted Seedance serves what its version can.
import { getModel } from '@mediagen/catalog';
import type { Coverage } from '../coverage';
import { hostedSeedanceCoverage, hostedSeedanceMappingError } from './hosted-seedance-coverage';
import { KNOWN_IMAGE_MODELS, replicateImageModel } from './replicate-image-models';
import { parseReplicateModel, replicateFamily } from './replicate-request';

export function replicateMappingError(model: string, value: string | undefined): string | null {
  const info = getModel(model);
  if (!info) return `${model} is not in the catalog`;
  const target = parseReplicateModel(value);
  if (!target) return `the channel maps ${model} to "${value ?? ''}", not a Replicate model (owner/name[:version])`;
  const family = replicateFamily(model, target);
  // Each image model names its inputs differently (replicate-image-models.ts): an unknown one cannot be driven.
  if (family === 'image' && !replicateImageModel(target.owner, target.name))
    return `${model} on Replicate model ${target.owner}/${target.name}: this adapter knows the image inputs of ${KNOWN_IMAGE_MODELS.join(', ')} only (each names its reference images differently)`;
  if (family === 'seedance') return hostedSeedanceMappingError(target.name);
  if (family) return null;
  return `${model} on Replicate model ${value}: this adapter knows the inputs of google/veo-3.1 (video-c-3.1), bytedance/seedance-* (video-b) and image models; ${info.type === 'video' ? info.family : 'this model'} cannot be mapped there`;
}

export function replicateCoverage(model: string, value: string | undefined, variant: string | null): Coverage {
  const target = parseReplicateModel(value);
  if (!target) return {};
  const family = replicateFamily(model, target);
  const info = getModel(model);
  const inputs = family === 'image' ? replicateImageModel(target.owner, target.name) : undefined;
  if (inputs && info?.type === 'image') {
    // What the image model takes of what the catalog sells: its reference images, ratios and sizes.
    const c: Coverage = {};
    if (inputs.images.max < info.maxImages) c.maxRefs = { image: inputs.images.max };
    const ratios = info.ratios.filter((r) => inputs.ratios.includes(r));
    if (ratios.length < info.ratios.length) c.ratios = ratios;
    const sizes = info.resolutions.filter((r) => inputs.resolution?.values[r]);
    if (sizes.length < info.resolutions.length) c.resolutions = sizes;
    return c;
  }
  if (family === 'seedance') return hostedSeedanceCoverage(model, target.name);
  if (family === 'veo' && variant === 'video-c-3.1-components') return { ratios: ['16:9'] };
  return {};
}
