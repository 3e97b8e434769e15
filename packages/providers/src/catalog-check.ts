// The channel config checked against the catalog when a process starts (issue 13 points 2, 11):
// - every enabled channel can serve every model (and variant) it maps, with every mode the catalog
//   offers for it (adapter.unsupported): otherwise a startup error naming the model and the channel,
//   never a request dropped at render time;
// - every model, video-b tier and video-c variant that is sold (SOLD_MODELS, default the whole
//   catalog; a filter in front of the check, so an operator offering a subset starts) is served by at least one enabled
//   channel that can serve it: an error in production, a warning elsewhere (tests and trials run
//   configs that serve a few models; their other models' tasks fail with generation_failed).
import { MODELS, WHOLE_CATALOG, type ModelInfo, type SoldCatalog } from '@mediagen/catalog';
import type { ChannelAdapter } from './channel-adapter';
import { ChannelConfig, ChannelConfigError, upstreamModelFor } from './channel-config';
import { channelsFor } from './channel-order';

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

export interface CatalogCheck {
  /** Channels mapping a model they cannot serve: always fatal. */
  errors: string[];
  /** Catalog units no enabled channel can serve: fatal in production. */
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
  const cannot = (channelId: string, model: string, variant: string | null): string | null =>
    adapters.get(channelId)?.unsupported?.(model, variant) ?? null;

  for (const model of models) {
    for (const unit of units(model)) {
      const serving = channelsFor(config, unit.model, unit.tier, unit.variant).filter(
        (c) => unit.variant === null || upstreamModelFor(c, unit.model, unit.variant) !== undefined,
      );
      let able = 0;
      for (const c of serving) {
        const why = cannot(c.id, unit.model, unit.variant);
        if (why) errors.push(`channel ${c.id} (${c.protocol}) cannot serve ${unit.label}: ${why}`);
        else able += 1;
      }
      if (able === 0 && sold.sells(unit.model, unit.tier ?? unit.variant)) unserved.push(unit.label);
    }
  }
  return { errors: [...new Set(errors)], unserved };
}

/**
 * Throws ChannelConfigError listing every problem; returns the unserved units for a warning when
 * they are allowed (outside production).
 */
export function assertServesCatalog(config: ChannelConfig, adapters: Map<string, ChannelAdapter>, opts: { production: boolean; sold?: SoldCatalog }): string[] {
  const { errors, unserved } = checkAgainstCatalog(config, adapters, Object.values(MODELS), opts.sold);
  const fatal = [...errors, ...(opts.production ? unserved.map((u) => `no enabled channel can serve ${u}`) : [])];
  if (fatal.length) throw new ChannelConfigError(`The channel config does not fit the catalog:\n  ${fatal.join('\n  ')}`);
  return unserved;
}
