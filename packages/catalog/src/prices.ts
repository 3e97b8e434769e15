// Prices in integer micro-USD (1 USD = 1,000,000 micros) so money never touches floating point.
// Each price says where it comes from: 'spec' (a figure the spec states), 'spec-from' (the spec's
// "from" indication, which we take as the price of the cheapest configuration) or 'assumed' (the
// spec shows no figure; the team chose one). docs/models-and-pricing.md prints this table.
import type { Tier } from './models';

export type PriceSource = 'spec' | 'spec-from' | 'assumed';
export interface Price { micros: bigint; source: PriceSource; note?: string }

const p = (micros: number, source: PriceSource, note?: string): Price =>
  note === undefined ? { micros: BigInt(micros), source } : { micros: BigInt(micros), source, note };

type TierPrices = Partial<Record<Tier, Price>>;

export interface PriceTable {
  'video-a-h3': {
    perSecond: Record<'480p' | '768p' | '1080p', Price>;
    /** Added per second for effort 1.5x / 2x; no effort tiers exist at 1080p. */
    effortExtraPerSecond: Record<'480p' | '768p', Record<'1.5x' | '2x', Price>>;
  };
  'video-b-2.5': { perSecond: Record<'480p' | '720p', TierPrices> };
  'video-b-2.0': { perSecond: Record<'720p', TierPrices> };
  'video-b-2.0-mini': { perSecond: Record<'720p', TierPrices> };
  'video-c-3.1': { perVideo: Record<'video-c-3.1-fast' | 'video-c-3.1-components' | 'video-c-3.1-pro', Price> };
  images: Record<string, Price>;
}

export const PRICES: PriceTable = {
  'video-a-h3': {
    perSecond: {
      '480p': p(7_000, 'spec-from', 'Video model table: from 0.007 USD per second.'),
      '768p': p(43_000, 'assumed', 'Derived from the effort table: 0.013 USD/s is +30% => about 0.0433 USD/s.'),
      '1080p': p(80_000, 'assumed'),
    },
    effortExtraPerSecond: {
      '480p': {
        '1.5x': p(2_100, 'spec', 'video-a-h3 effort surcharge: +30% of the 480p rate.'),
        '2x': p(4_200, 'spec', 'video-a-h3 effort surcharge: +60% of the 480p rate.'),
      },
      '768p': {
        // The spec's two 768p figures imply different base rates (0.013/0.30 = 0.0433 but
        // 0.016/0.60 = 0.0267); we charge the absolute surcharges the spec prints.
        '1.5x': p(13_000, 'spec', 'video-a-h3 effort surcharge: 768p 0.013 USD/s extra.'),
        '2x': p(16_000, 'spec', 'video-a-h3 effort surcharge: 768p 0.016 USD/s extra.'),
      },
    },
  },
  'video-b-2.5': {
    perSecond: {
      '480p': {
        'third-party': p(116_000, 'spec-from', 'Video model table: from 0.116 USD per second.'),
        official: p(145_000, 'assumed'),
      },
      '720p': { official: p(232_000, 'assumed') },
    },
  },
  'video-b-2.0': { perSecond: { '720p': { 'third-party': p(161_000, 'spec-from', 'Video model table: from 0.161 USD per second.') } } },
  'video-b-2.0-mini': { perSecond: { '720p': { official: p(89_000, 'spec-from', 'Video model table: from 0.089 USD per second.') } } },
  'video-c-3.1': {
    perVideo: {
      'video-c-3.1-fast': p(100_000, 'spec-from', 'Video model table: from 0.10 USD per video; the default variant.'),
      'video-c-3.1-components': p(200_000, 'assumed'),
      'video-c-3.1-pro': p(400_000, 'assumed'),
    },
  },
  // One price per image, the same at every resolution.
  images: {
    'image-a-5.0': p(200_000, 'spec'),
    'image-b-2.5': p(30_000, 'spec'),
    'image-c-2.1': p(30_000, 'spec'),
    'image-b-2': p(30_000, 'spec'),
    'image-d-3-pro-image-preview': p(30_000, 'spec'),
    'image-d-3.1-flash-image-preview': p(20_000, 'spec'),
    'image-d-2.5-flash-image': p(20_000, 'spec'),
  },
};

export type PriceUnit = 'second' | 'video' | 'image';
export interface PriceRow extends Price {
  model: string;
  unit: PriceUnit;
  what: string;
  /** The video-b tier or video-c variant the price belongs to (SOLD_MODELS may sell only some). */
  option?: string;
}

/** Micro-USD as a decimal USD figure, exact, with at least two decimals: 7_000n -> "0.007", 100_000n -> "0.10". */
export function formatMicrosUsd(micros: bigint): string {
  const sign = micros < 0n ? '-' : '';
  const abs = micros < 0n ? -micros : micros;
  const frac = (abs % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '').padEnd(2, '0');
  return `${sign}${abs / 1_000_000n}.${frac}`;
}

/** A price as the catalog states it: "0.116 USD per second". */
export const describePrice = (row: Pick<PriceRow, 'micros' | 'unit'>): string => `${formatMicrosUsd(row.micros)} USD per ${row.unit}`;

/** Every price as a flat list (docs, admin views, and the test that every price is used). */
export function listPrices(): PriceRow[] {
  const rows: PriceRow[] = [];
  const a = PRICES['video-a-h3'];
  for (const [res, price] of Object.entries(a.perSecond)) rows.push({ model: 'video-a-h3', unit: 'second', what: `${res}, effort 1x`, ...price });
  for (const [res, byEffort] of Object.entries(a.effortExtraPerSecond)) {
    for (const [effort, price] of Object.entries(byEffort)) rows.push({ model: 'video-a-h3', unit: 'second', what: `${res}, effort ${effort} surcharge`, ...price });
  }
  for (const model of ['video-b-2.5', 'video-b-2.0', 'video-b-2.0-mini'] as const) {
    for (const [res, byTier] of Object.entries(PRICES[model].perSecond) as [string, TierPrices][]) {
      for (const [tier, price] of Object.entries(byTier)) rows.push({ model, unit: 'second', what: `${res}, ${tier}`, option: tier, ...price! });
    }
  }
  for (const [variant, price] of Object.entries(PRICES['video-c-3.1'].perVideo)) rows.push({ model: 'video-c-3.1', unit: 'video', what: variant, option: variant, ...price });
  for (const [model, price] of Object.entries(PRICES.images)) rows.push({ model, unit: 'image', what: 'any resolution', ...price });
  return rows;
}
