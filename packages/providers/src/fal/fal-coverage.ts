// Which of our models a fal channel can map (start-up errors) and what it renders of each (routing
// per task, coverage.ts). A hosted Seedance serves what its version can (hosted-seedance-coverage.ts).
// fal's MiniMax H3 app (`minimax/h3-max`: 480P/768P, 5-15 s, no effort knob) would serve part of
// video-a-h3, but this adapter has no request mapping for its inputs yet, so mapping it is refused.
import { getModel } from '@mediagen/catalog';
import type { Coverage } from '../coverage';
import { hostedSeedanceCoverage, hostedSeedanceMappingError } from '../replicate/hosted-seedance-coverage';
import { falFamily } from './fal-request';

const FAL_H3 = /(^|\/)(minimax\/)?h3(-max)?(\/|$)/i;

export function falMappingError(model: string, app: string | undefined): string | null {
  const info = getModel(model);
  if (!info) return `${model} is not in the catalog`;
  if (!app || !/^[\w.-]+\/[\w.-]+(\/[\w.-]+)*$/.test(app)) return `the channel maps ${model} to "${app ?? ''}", not a fal app (owner/app)`;
  if (FAL_H3.test(app) && info.type === 'video' && info.family === 'video-a')
    return `fal's ${app} has no request mapping in this adapter (its inputs are unverified): map video-a-h3 to a MiniMax v2 channel (protocol minimax)`;
  const family = falFamily(model, app);
  if (family === 'seedance') return hostedSeedanceMappingError(app);
  if (family) return null;
  return `${model} on fal app ${app}: this adapter knows the inputs of Veo 3.1 apps (video-c-3.1), Seedance apps (video-b) and image apps; ${info.type === 'video' ? `${info.family} on this app` : 'this app'} cannot be mapped`;
}

export function falCoverage(model: string, app: string | undefined): Coverage {
  if (!app) return {};
  return falFamily(model, app) === 'seedance' ? hostedSeedanceCoverage(model, app) : {};
}
