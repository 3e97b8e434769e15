// What this deployment sells: the whole catalog (the default), or the subset named by SOLD_MODELS
// (docs/models-and-pricing.md, "Selling a subset"). A deployment starts with one or two upstreams;
// it sells what they serve, and a request for anything else answers 400 `model_not_offered`,
// distinct from `invalid_model` (a name this service has never known): the model exists, it is
// just not offered here. The OpenAPI document, the front page, GET /api/models and the start check
// of the channel config all read the same value.
//
// An entry is a model id (every tier and variant of it), or `<model>:<tier>` for a video-b tier,
// or `<model>:<variant>` for a video-c variant. Example: `image-b-2.5,video-b-2.5:official`.
import { invalid } from '@mediagen/errors';
import { MODELS, type ModelInfo, type Tier } from './models';
import { listPrices, type PriceRow } from './prices';

export interface SoldCatalog {
  /** Undefined: the whole catalog is sold. */
  readonly entries?: ReadonlyMap<string, ReadonlySet<string> | 'all'>;
  /** Whether the model (and, where it matters, the tier or variant) is sold. */
  sells(model: string, option?: string | null): boolean;
  /** The sold models of the catalog, in catalog order. */
  models(type?: 'video' | 'image'): ModelInfo[];
  /** The sold tiers (video-b) or variants (video-c) of a sold model; every one when it is sold whole. */
  options(model: ModelInfo): string[];
}

/** Every option a model offers: its video-b tiers or its video-c variants (none for the others). */
export function optionsOf(model: ModelInfo): string[] {
  if (model.type !== 'video') return [];
  if (model.offers) return [...new Set(model.offers.map((o) => o.tier as Tier))];
  return model.variants?.map((v) => v.id) ?? [];
}

export class SoldModelsError extends Error {}

/** Parses SOLD_MODELS; throws SoldModelsError naming each entry the catalog does not have. */
export function parseSoldModels(value: string | undefined): SoldCatalog {
  const raw = (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (raw.length === 0) return soldCatalog(undefined);
  const entries = new Map<string, Set<string> | 'all'>();
  const problems: string[] = [];
  for (const entry of raw) {
    const [id, option, extra] = entry.split(':');
    const model = MODELS[id];
    if (!model) {
      problems.push(`"${entry}": no model ${id} in the catalog (${Object.keys(MODELS).join(', ')})`);
      continue;
    }
    if (option === undefined) {
      entries.set(id, 'all');
      continue;
    }
    const offered = optionsOf(model);
    if (extra !== undefined || !offered.includes(option)) {
      problems.push(`"${entry}": ${offered.length ? `${id} offers ${offered.join(', ')}` : `${id} has no tiers or variants; name it alone`}`);
      continue;
    }
    const had = entries.get(id);
    if (had !== 'all') entries.set(id, new Set([...(had ?? []), option]));
  }
  if (problems.length) throw new SoldModelsError(`SOLD_MODELS: ${problems.join('; ')}`);
  return soldCatalog(entries);
}

function soldCatalog(entries: Map<string, Set<string> | 'all'> | undefined): SoldCatalog {
  const all = Object.values(MODELS);
  const sells = (model: string, option?: string | null): boolean => {
    if (!entries) return Object.prototype.hasOwnProperty.call(MODELS, model);
    const e = entries.get(model);
    return e === 'all' || (e !== undefined && (option === undefined || option === null || e.has(option)));
  };
  return {
    entries,
    sells,
    models: (type) => all.filter((m) => sells(m.id) && (type === undefined || m.type === type)),
    options: (model) => optionsOf(model).filter((o) => sells(model.id, o)),
  };
}

/** The whole catalog: what a deployment without SOLD_MODELS sells. */
export const WHOLE_CATALOG: SoldCatalog = soldCatalog(undefined);

/** 400 model_not_offered for a model, or one of its tiers or variants, that this deployment does not sell. */
export function checkSold(sold: SoldCatalog | undefined, model: ModelInfo, option: string | null, optionName: 'tier' | 'variant' | null): void {
  if (!sold || sold.sells(model.id, option)) return;
  const offered = sold.models(model.type).map((m) => m.id);
  const list = offered.length ? `this service offers ${offered.join(', ')}` : `this service offers no ${model.type} models`;
  if (!sold.sells(model.id)) throw invalid('model', `${model.id} is not offered here; ${list}`, 'model_not_offered');
  const options = sold.options(model);
  throw invalid(optionName ?? 'model', `${option} is not offered here for ${model.id}; it is offered with ${optionName} ${options.join(' or ')}`, 'model_not_offered');
}

/** A sold model with its sold tiers or variants and the prices of what is sold (the front page, the holder's balance page). */
export interface SoldModelSummary {
  model: ModelInfo;
  /** The sold tiers (video-b) or variants (video-c); empty for the other models. */
  options: string[];
  /** The catalog's prices of the model, without those of tiers or variants not sold. */
  prices: PriceRow[];
}

/** The sold models, in catalog order, with their sold options and prices. */
export function soldModelSummaries(sold: SoldCatalog): SoldModelSummary[] {
  const prices = listPrices();
  return sold.models().map((model) => ({
    model,
    options: sold.options(model),
    prices: prices.filter((p) => p.model === model.id && (p.option === undefined || sold.sells(model.id, p.option))),
  }));
}
