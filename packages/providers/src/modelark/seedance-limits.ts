// What each Seedance version renders (providers.md §1.2, corrections 4), recognised from the
// upstream model id, so a channel that maps one of our video-b models to a smaller Seedance is
// refused when the config loads instead of failing the longer or richer requests at render time.
// An id no pattern recognises is accepted: the operator named a model we do not know the limits of.
import type { VideoModelInfo } from '@mediagen/catalog';

interface SeedanceLimits {
  version: string;
  maxSeconds: number;
  /** Reference files per kind; null: not checked (1.x image inputs vary by model). */
  refs: { image: number | null; video: number; audio: number };
}

const VERSIONS: readonly [RegExp, SeedanceLimits][] = [
  [/seedance-2-5/i, { version: '2.5', maxSeconds: 30, refs: { image: 30, video: 10, audio: 10 } }],
  [/seedance-2-0/i, { version: '2.0', maxSeconds: 15, refs: { image: 9, video: 3, audio: 3 } }],
  [/seedance-1-/i, { version: '1.x', maxSeconds: 12, refs: { image: null, video: 0, audio: 0 } }],
];

export function seedanceLimits(upstreamModel: string): SeedanceLimits | undefined {
  return VERSIONS.find(([re]) => re.test(upstreamModel))?.[1];
}

/** Why this Seedance model cannot serve everything the catalog sells for `info`, or null. */
export function seedanceShortfall(info: VideoModelInfo, upstreamModel: string): string | null {
  const limits = seedanceLimits(upstreamModel);
  if (!limits || !info.offers?.length) return null;
  const maxSeconds = Math.max(...info.offers.map((o) => o.duration.max));
  const most = (k: 'image' | 'video' | 'audio') => Math.max(...info.offers!.map((o) => o.maxRefs[k]));
  const short: string[] = [];
  if (maxSeconds > limits.maxSeconds) short.push(`${maxSeconds} s (it renders up to ${limits.maxSeconds} s)`);
  for (const k of ['image', 'video', 'audio'] as const) {
    const cap = limits.refs[k];
    if (cap !== null && most(k) > cap) short.push(`${most(k)} reference ${k}s (it takes ${cap})`);
  }
  return short.length ? `${upstreamModel} is Seedance ${limits.version}; ${info.id} sells ${short.join(', ')}` : null;
}
