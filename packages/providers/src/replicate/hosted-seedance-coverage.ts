// What a hosted Seedance (fal, Replicate) renders of a video-b model, by the version in the host's
// model name (hosted-seedance.ts): its longest video and reference counts, as a coverage (routing
// per task, coverage.ts). A version this file does not know cannot be mapped at all.
import { getModel } from '@mediagen/catalog';
import type { Coverage } from '../coverage';
import { seedanceLimits } from './hosted-seedance';

/** A start-up error for a Seedance name without a known version, or null. */
export function hostedSeedanceMappingError(upstreamName: string): string | null {
  return seedanceLimits(upstreamName) ? null : `${upstreamName}: unknown Seedance version (known: 2.0, 2.5)`;
}

export function hostedSeedanceCoverage(model: string, upstreamName: string): Coverage {
  const info = getModel(model);
  const limits = seedanceLimits(upstreamName);
  if (!info || info.type !== 'video' || !info.offers?.length || !limits) return {};
  const c: Coverage = {};
  if (Math.max(...info.offers.map((o) => o.duration.max)) > limits.maxSeconds)
    c.seconds = { min: Math.min(...info.offers.map((o) => o.duration.min)), max: limits.maxSeconds };
  const refs: Coverage['maxRefs'] = {};
  for (const k of ['image', 'video', 'audio'] as const)
    if (Math.max(...info.offers.map((o) => o.maxRefs[k])) > limits.maxRefs[k]) refs[k] = limits.maxRefs[k];
  if (Object.keys(refs).length) c.maxRefs = refs;
  return c;
}
