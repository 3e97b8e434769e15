// What one channel can render of one model it maps: its coverage. A channel may serve part of a
// model (a host that renders 480p/768p only, a Seedance version with a shorter maximum length, an
// upstream model without effort tiers); routing then picks, per task, only the channels whose
// coverage holds that task's options (coverageGap), and the start-up check refuses a config only
// when an option the catalog sells has no channel at all (catalog-check.ts).
//
// A coverage lists only what the channel restricts; an absent field means "everything the catalog
// sells for the model". Adapters derive it from what their protocol and upstream model can render
// (ChannelAdapter.coverage); nothing is configured twice.
import { getModel, type ModelInfo, type TaskSpec } from '@mediagen/catalog';

export type RefKind = 'image' | 'video' | 'audio';

export interface Coverage {
  /** Aspect ratios the channel renders. */
  ratios?: readonly string[];
  /** Resolutions the channel renders (models with a resolution parameter). */
  resolutions?: readonly string[];
  /** Output length in whole seconds, both ends included (video). */
  seconds?: { min: number; max: number };
  /** Effort tiers the channel renders (video-a); '1x' is the tier of a task without one. */
  efforts?: readonly string[];
  /** Most reference files per kind (frames count as images). */
  maxRefs?: Partial<Record<RefKind, number>>;
}

/** A coverage restricting nothing. */
export const FULL_COVERAGE: Coverage = Object.freeze({});

/** A channel's coverage of a model (or variant), from its adapter; everything when the adapter says nothing. */
// The adapter is typed by the one method read here, not by ChannelAdapter: channel-adapter.ts
// imports Coverage from this file, and the import graph stays free of circles (test/structure).
export function channelCoverage(adapter: { coverage?(model: string, variant: string | null): Coverage } | undefined, model: string, variant: string | null): Coverage {
  return adapter?.coverage?.(model, variant) ?? FULL_COVERAGE;
}

/** Whether a coverage restricts anything at all. */
export const isPartial = (c: Coverage): boolean =>
  c.ratios !== undefined || c.resolutions !== undefined || c.seconds !== undefined || c.efforts !== undefined ||
  (c.maxRefs !== undefined && Object.keys(c.maxRefs).length > 0);

/** Whole seconds the upstream is asked for (it takes integers; we never render less than was priced). */
const wholeSeconds = (s: number) => Math.max(1, Math.ceil(s - 1e-9));

/** Reference files of a task by kind, frames counted as images. */
export function referenceCounts(spec: TaskSpec): Record<RefKind, number> {
  if (spec.type === 'image') return { image: spec.images.length, video: 0, audio: 0 };
  const n = { image: (spec.firstFrame ? 1 : 0) + (spec.lastFrame ? 1 : 0), video: 0, audio: 0 };
  for (const m of spec.media) n[m.kind] += 1;
  return n;
}

/** The options of one task (or of one combination the catalog sells) that a coverage is read against. */
export interface RenderOption {
  ratio: string;
  resolution: string | null;
  /** Whole seconds of output (video), or null. */
  seconds: number | null;
  effort: string | null;
  refs: Record<RefKind, number>;
}

export function optionOf(spec: TaskSpec, outputSeconds: number | null): RenderOption {
  const seconds = spec.type === 'video' ? (outputSeconds ?? spec.duration) : null;
  return {
    ratio: spec.ratio,
    resolution: spec.resolution,
    seconds: seconds === null ? null : wholeSeconds(seconds),
    effort: spec.type === 'video' ? spec.effort : null,
    refs: referenceCounts(spec),
  };
}

/** Why a channel with this coverage cannot render the option (a short phrase naming it), or null. */
export function optionGap(c: Coverage, o: RenderOption): string | null {
  if (c.ratios && !c.ratios.includes(o.ratio)) return `ratio ${o.ratio} (renders ${c.ratios.join('/')})`;
  if (c.resolutions && o.resolution && !c.resolutions.includes(o.resolution))
    return `resolution ${o.resolution} (renders ${c.resolutions.join('/') || 'none'})`;
  if (c.seconds && o.seconds !== null && (o.seconds < c.seconds.min || o.seconds > c.seconds.max))
    return `${o.seconds} s (renders ${c.seconds.min}-${c.seconds.max} s)`;
  if (c.efforts && o.effort && !c.efforts.includes(o.effort)) return `effort ${o.effort} (renders ${c.efforts.join('/') || 'none'})`;
  for (const kind of ['image', 'video', 'audio'] as const) {
    const cap = c.maxRefs?.[kind];
    if (cap !== undefined && o.refs[kind] > cap) return `${o.refs[kind]} reference ${kind}s (takes ${cap})`;
  }
  return null;
}

/**
 * Why a channel with this coverage cannot render the task, or null when it can. `outputSeconds`
 * is the length the task was priced for.
 */
export const coverageGap = (c: Coverage, spec: TaskSpec, outputSeconds: number | null): string | null => optionGap(c, optionOf(spec, outputSeconds));

/** Coverage A within B's bounds on every axis (the narrower of both). */
export function intersectCoverage(a: Coverage, b: Coverage): Coverage {
  const out: Coverage = {};
  const list = (x?: readonly string[], y?: readonly string[]) => (x && y ? x.filter((v) => y.includes(v)) : (x ?? y));
  const ratios = list(a.ratios, b.ratios);
  if (ratios) out.ratios = ratios;
  const resolutions = list(a.resolutions, b.resolutions);
  if (resolutions) out.resolutions = resolutions;
  const efforts = list(a.efforts, b.efforts);
  if (efforts) out.efforts = efforts;
  if (a.seconds || b.seconds) {
    const s = [a.seconds, b.seconds].filter((v): v is { min: number; max: number } => !!v);
    out.seconds = { min: Math.max(...s.map((v) => v.min)), max: Math.min(...s.map((v) => v.max)) };
  }
  if (a.maxRefs || b.maxRefs) {
    const refs: Partial<Record<RefKind, number>> = {};
    for (const k of ['image', 'video', 'audio'] as const) {
      const caps = [a.maxRefs?.[k], b.maxRefs?.[k]].filter((v): v is number => v !== undefined);
      if (caps.length) refs[k] = Math.min(...caps);
    }
    out.maxRefs = refs;
  }
  return out;
}

/** What the catalog sells for a model (or one video-b tier), as a coverage: the bounds a channel's is read against. */
export function soldCoverage(model: ModelInfo | string, tier: 'official' | 'third-party' | null = null): Coverage {
  const info = typeof model === 'string' ? getModel(model) : model;
  if (!info) return {};
  const c: Coverage = { ratios: info.ratios };
  if (info.resolutions.length) c.resolutions = info.resolutions;
  if (info.type === 'image') return { ...c, maxRefs: { image: info.maxImages, video: 0, audio: 0 } };
  const offers = info.offers?.filter((o) => tier === null || o.tier === tier);
  if (offers?.length) {
    c.resolutions = [...new Set(offers.map((o) => o.resolution))];
    c.seconds = { min: Math.min(...offers.map((o) => o.duration.min)), max: Math.max(...offers.map((o) => o.duration.max)) };
    const most = (k: RefKind) => Math.max(...offers.map((o) => o.maxRefs[k]));
    c.maxRefs = { image: most('image'), video: most('video'), audio: most('audio') };
  } else if (info.durations) {
    const ranges = Object.values(info.durations);
    c.seconds = { min: Math.min(...ranges.map((r) => r.min)), max: Math.max(...ranges.map((r) => r.max)) };
  }
  if (info.family === 'video-a') c.efforts = ['1x', '1.5x', '2x'];
  return c;
}

/** "480p/768p · 5-15 s · effort 1x · up to 9 images": a coverage for the console, or "everything sold". */
export function describeCoverage(c: Coverage): string {
  if (!isPartial(c)) return 'everything sold';
  const parts: string[] = [];
  if (c.resolutions) parts.push(c.resolutions.join('/') || 'no resolution');
  if (c.ratios) parts.push(c.ratios.join('/'));
  if (c.seconds) parts.push(`${c.seconds.min}-${c.seconds.max} s`);
  if (c.efforts) parts.push(`effort ${c.efforts.join('/') || 'none'}`);
  const refs = Object.entries(c.maxRefs ?? {}).map(([k, n]) => `${n} ${k}${n === 1 ? '' : 's'}`);
  if (refs.length) parts.push(`up to ${refs.join(', ')}`);
  return parts.join(' · ');
}
