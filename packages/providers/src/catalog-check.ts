// The channel config checked against the catalog when a process starts:
// - a channel mapping a model it can never serve (adapter.unsupported: a video model on an image
//   API, a host whose inputs the adapter does not know) is a startup error naming both;
// - a channel may serve part of a model (adapter.coverage: some resolutions, a shorter maximum
//   length, no effort tiers); routing then sends each task only to channels that can render it.
//   What must hold is that every option the catalog sells (each model, video-b tier and video-c
//   variant, at each ratio, resolution, whole second, effort tier and the most reference files of
//   each kind) has at least one enabled channel able to render it. An option without one is an
//   error in production, naming the option and the channels looked at; a warning elsewhere (tests
//   and trials run configs that serve a few models; those tasks fail with generation_failed).
// - only what is sold (SOLD_MODELS, default the whole catalog) must be served: a filter in front
//   of the coverage check, so an operator offering a subset of the catalog starts.
import { EFFORT_RESOLUTIONS, MODELS, VIDEO_A_MODES, WHOLE_CATALOG, type ModelInfo, type SoldCatalog } from '@mediagen/catalog';
import type { ChannelAdapter } from './channel-adapter';
import { Channel, ChannelConfig, ChannelConfigError, upstreamModelFor } from './channel-config';
import { channelsFor } from './channel-order';
import { channelCoverage, type Coverage, optionGap, type RefKind, type RenderOption } from './coverage';

/** One thing the catalog sells that needs a channel: a model, a video-b tier, a video-c variant. */
interface Unit {
  model: string;
  tier: 'official' | 'third-party' | null;
  variant: string | null;
  label: string;
}

function units(model: ModelInfo): Unit[] {
  if (model.type === 'video' && model.offers) {
    const tiers = [...new Set(model.offers.map((o) => o.tier))];
    return tiers.map((tier) => ({ model: model.id, tier, variant: null, label: `${model.id} (tier ${tier})` }));
  }
  if (model.type === 'video' && model.variants)
    return model.variants.map((v) => ({ model: model.id, tier: null, variant: v.id, label: `${model.id} (variant ${v.id})` }));
  return [{ model: model.id, tier: null, variant: null, label: model.id }];
}

const NO_REFS: Record<RefKind, number> = { image: 0, video: 0, audio: 0 };

/** The reference loads a unit sells: none, and the most of each kind. */
function refLoads(model: ModelInfo, unit: Unit): Record<RefKind, number>[] {
  let most: Record<RefKind, number>;
  if (model.type === 'image') most = { image: model.maxImages, video: 0, audio: 0 };
  else if (model.offers) {
    const offers = model.offers.filter((o) => o.tier === unit.tier);
    most = { image: Math.max(...offers.map((o) => o.maxRefs.image)), video: Math.max(...offers.map((o) => o.maxRefs.video)), audio: Math.max(...offers.map((o) => o.maxRefs.audio)) };
  } else if (model.variants) most = { image: model.variants.find((v) => v.id === unit.variant)?.maxImages ?? 0, video: 0, audio: 0 };
  else {
    const media = Object.values(VIDEO_A_MODES).map((m) => m.media ?? NO_REFS);
    most = { image: Math.max(...media.map((m) => m.image)), video: Math.max(...media.map((m) => m.video)), audio: Math.max(...media.map((m) => m.audio)) };
  }
  const loads = [NO_REFS];
  for (const k of ['image', 'video', 'audio'] as const) if (most[k] > 0) loads.push({ ...NO_REFS, [k]: most[k] });
  return loads;
}

/** Every combination of options the catalog sells for a unit (a few hundred at most). */
export function soldOptions(model: ModelInfo, unit: Unit): RenderOption[] {
  const base: { resolution: string | null; seconds: number | null; effort: string | null }[] = [];
  const range = (min: number, max: number) => Array.from({ length: max - min + 1 }, (_, i) => min + i);
  if (model.type === 'image') for (const resolution of model.resolutions.length ? model.resolutions : [null]) base.push({ resolution, seconds: null, effort: null });
  else if (model.offers)
    for (const o of model.offers.filter((x) => x.tier === unit.tier))
      for (const seconds of range(o.duration.min, o.duration.max)) base.push({ resolution: o.resolution, seconds, effort: null });
  else if (model.durations)
    for (const [resolution, r] of Object.entries(model.durations))
      for (const seconds of range(r.min, r.max))
        for (const effort of model.family === 'video-a' && EFFORT_RESOLUTIONS.includes(resolution) ? ['1x', '1.5x', '2x'] : [null])
          base.push({ resolution, seconds, effort });
  else base.push({ resolution: null, seconds: null, effort: null });
  const out: RenderOption[] = [];
  for (const ratio of model.ratios) for (const b of base) for (const refs of refLoads(model, unit)) out.push({ ratio, ...b, refs });
  return out;
}

export function describeOption(o: RenderOption): string {
  const refs = Object.entries(o.refs).filter(([, n]) => n > 0).map(([k, n]) => `${n} reference ${k}s`);
  return [o.resolution, o.ratio, o.seconds !== null ? `${o.seconds} s` : null, o.effort ? `effort ${o.effort}` : null, ...refs].filter(Boolean).join(' ');
}

export interface CatalogCheck {
  /** Channels mapping a model they can never serve: always fatal. */
  errors: string[];
  /** Options the catalog sells that no enabled channel can render: fatal in production. */
  unserved: string[];
}

export function checkAgainstCatalog(
  config: ChannelConfig,
  adapters: Map<string, ChannelAdapter>,
  models: readonly ModelInfo[] = Object.values(MODELS),
  sold: SoldCatalog = WHOLE_CATALOG,
): CatalogCheck {
  const errors: string[] = [];
  const unserved: string[] = [];
  for (const model of models) {
    for (const unit of units(model)) {
      const serving = channelsFor(config, unit.model, unit.tier, unit.variant).filter(
        (c) => unit.variant === null || upstreamModelFor(c, unit.model, unit.variant) !== undefined,
      );
      const able: { channel: Channel; coverage: Coverage }[] = [];
      for (const c of serving) {
        const why = adapters.get(c.id)?.unsupported?.(unit.model, unit.variant) ?? null;
        if (why) errors.push(`channel ${c.id} (${c.protocol}) cannot serve ${unit.label}: ${why}`);
        else able.push({ channel: c, coverage: channelCoverage(adapters.get(c.id), unit.model, unit.variant) });
      }
      // What is not sold here needs no channel (a channel mapping it must still be able to serve it).
      if (!sold.sells(unit.model, unit.tier ?? unit.variant)) continue;
      if (able.length === 0) {
        unserved.push(`no enabled channel can serve ${unit.label} (channels looked at: ${serving.map((c) => c.id).join(', ') || 'none'})`);
        continue;
      }
      const missing = soldOptions(model, unit).filter((o) => able.every((a) => optionGap(a.coverage, o) !== null));
      if (missing.length) {
        const first = missing[0];
        const more = missing.length > 1 ? ` and ${missing.length - 1} more option${missing.length > 2 ? 's' : ''}` : '';
        const looked = able.map((a) => `${a.channel.id}: ${optionGap(a.coverage, first)}`).join('; ');
        unserved.push(`no enabled channel can render ${unit.label} at ${describeOption(first)}${more} (channels looked at: ${looked})`);
      }
    }
  }
  return { errors: [...new Set(errors)], unserved };
}

/**
 * Throws ChannelConfigError listing every problem; returns the unserved options for a warning when
 * they are allowed (outside production).
 */
export function assertServesCatalog(config: ChannelConfig, adapters: Map<string, ChannelAdapter>, opts: { production: boolean; sold?: SoldCatalog }): string[] {
  const { errors, unserved } = checkAgainstCatalog(config, adapters, Object.values(MODELS), opts.sold);
  const fatal = [...errors, ...(opts.production ? unserved : [])];
  if (fatal.length) throw new ChannelConfigError(`The channel config does not fit the catalog:\n  ${fatal.join('\n  ')}`);
  return unserved;
}
