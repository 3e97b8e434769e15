// The price of a task in integer micro-USD, rounded UP to whole cents for the API and the ledger.
// Seconds are whole numbers before they meet money, so every multiplication is bigint.
import type { Cost, MeasuredMedia, TaskSpec, VideoTaskSpec } from './types';
import { PRICES, Price } from './prices';
import { assertMeasuredMatches, ceilSeconds, lipSyncOutputSeconds, sumSeconds } from './measured-limits';

const MICROS_PER_CENT = 10_000n;

/** Rounded up: a task never costs less than its exact price. */
export const microsToCents = (micros: bigint): number => Number((micros + MICROS_PER_CENT - 1n) / MICROS_PER_CENT);

const cost = (costMicros: bigint, billedSeconds: number | null, outputSeconds: number | null): Cost => ({
  costMicros, costCents: microsToCents(costMicros), billedSeconds, outputSeconds,
});

function need<T>(value: T | undefined, what: string): T {
  // A spec that passed parse* always has a price; a miss is a catalog bug, never a client error.
  if (value === undefined) throw new Error(`no price for ${what}`);
  return value;
}

function videoACost(spec: VideoTaskSpec, measured: MeasuredMedia): Cost {
  const table = PRICES['video-a-h3'];
  const res = spec.resolution as keyof typeof table.perSecond;
  let perSecond = need(table.perSecond[res], `video-a-h3 ${res}`).micros;
  if (spec.effort && spec.effort !== '1x') {
    const extra = table.effortExtraPerSecond[res as keyof typeof table.effortExtraPerSecond];
    perSecond += need(extra?.[spec.effort], `video-a-h3 ${res} effort ${spec.effort}`).micros;
  }
  const seconds = spec.refMode === 'lip-sync' ? lipSyncOutputSeconds(spec, measured) : spec.duration!;
  return cost(perSecond * BigInt(seconds), seconds, seconds);
}

function videoBCost(spec: VideoTaskSpec, measured: MeasuredMedia): Cost {
  const model = spec.model as 'video-b-2.5' | 'video-b-2.0' | 'video-b-2.0-mini';
  const byRes = PRICES[model].perSecond as Record<string, Partial<Record<string, Price>>>;
  const price = need(byRes[spec.resolution!]?.[spec.tier!], `${model} ${spec.resolution} ${spec.tier}`);
  // Billed seconds = duration + total seconds of reference videos (started seconds).
  const billed = spec.duration! + ceilSeconds(sumSeconds(measured.videoSeconds));
  return cost(price.micros * BigInt(billed), billed, spec.duration);
}

export function computeCost(spec: TaskSpec, measured: MeasuredMedia): Cost {
  if (spec.type === 'image') return cost(need(PRICES.images[spec.model], spec.model).micros, null, null);
  // Pricing a video without its measurements would undercharge (lip-sync, video-b references).
  assertMeasuredMatches(spec, measured);
  if (spec.model === 'video-a-h3') return videoACost(spec, measured);
  if (spec.model === 'video-c-3.1') {
    const perVideo = PRICES['video-c-3.1'].perVideo as Record<string, Price>;
    return cost(need(perVideo[spec.variant!], `video-c-3.1 ${spec.variant}`).micros, null, null);
  }
  return videoBCost(spec, measured);
}
