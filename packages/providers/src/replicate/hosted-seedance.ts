// What Seedance can take when a host (fal, Replicate) runs it, by version in the host's model name
// (providers.md 1.2, 1.10): 2.0 takes up to 9 images, 3 videos and 3 audio clips and 15 s; 2.5 up
// to 30 images, 10 videos, 10 audio clips and 30 s. Shared by the fal and Replicate adapters, whose
// config-load check compares it with what the catalog sells for the model.
import { getModel } from '@mediagen/catalog';

interface SeedanceLimits {
  maxSeconds: number;
  maxRefs: { image: number; video: number; audio: number };
}

const BY_VERSION: Record<string, SeedanceLimits> = {
  '2.0': { maxSeconds: 15, maxRefs: { image: 9, video: 3, audio: 3 } },
  '2.5': { maxSeconds: 30, maxRefs: { image: 30, video: 10, audio: 10 } },
};

export function seedanceLimits(upstreamName: string): SeedanceLimits | null {
  const m = /seedance-(\d+\.\d+)/.exec(upstreamName);
  return m ? (BY_VERSION[m[1]] ?? null) : null;
}

/** Why this hosted Seedance cannot serve every mode the catalog offers for `model`, or null. */
export function seedanceShortfall(model: string, upstreamName: string): string | null {
  const info = getModel(model);
  if (!info || info.type !== 'video' || !info.offers) return null;
  const limits = seedanceLimits(upstreamName);
  if (!limits) return `${upstreamName}: unknown Seedance version (known: ${Object.keys(BY_VERSION).join(', ')})`;
  const maxSeconds = Math.max(...info.offers.map((o) => o.duration.max));
  if (maxSeconds > limits.maxSeconds) return `${model} offers up to ${maxSeconds} s, ${upstreamName} renders at most ${limits.maxSeconds} s`;
  for (const kind of ['image', 'video', 'audio'] as const) {
    const want = Math.max(...info.offers.map((o) => o.maxRefs[kind]));
    if (want > limits.maxRefs[kind]) return `${model} takes up to ${want} reference ${kind}s, ${upstreamName} at most ${limits.maxRefs[kind]}`;
  }
  return null;
}

/**
 * Why Seedance 2.x refuses these references, or null, so the request is not sent (its hosts'
 * schemas, e.g. replicate.com bytedance/seedance-2.0: reference audio "requires at least one
 * reference image or video"; first/last frames "cannot be combined with reference images"). The
 * error is `failed`: the task moves on to its next channel, nothing was rendered.
 */
export function seedanceRefusal(refs: readonly { role: string }[]): string | null {
  const has = (role: string) => refs.some((r) => r.role === role);
  if (has('reference_audio') && !has('reference_image') && !has('reference_video'))
    return 'Seedance refuses reference audio without a reference image or video';
  if ((has('first_frame') || has('last_frame')) && (has('reference_image') || has('reference_video') || has('reference_audio')))
    return 'Seedance refuses first/last frames together with reference inputs';
  return null;
}
