// What an upstream charged for one render, from the operator's price entry (a channel's `prices`)
// and what the render was: outputs, seconds of video sold, and what the upstream reported it used.
// No upstream answers money (docs/providers.md "Cost and margin"), so every cost is rate x quantity.
import type { UpstreamUsage } from './channel-adapter';

/** One term of a price: a rate in micro-USD per unit, and how many units the render had (null: unknown). */
export type PriceTerm = readonly [microUsdPerUnit: number | undefined, quantity: number | null | undefined];

/** The sum of the terms whose rate is set and whose quantity is known, or undefined when none is. */
export function costMicroUsd(terms: readonly PriceTerm[]): number | undefined {
  let total: number | undefined;
  for (const [rate, quantity] of terms) {
    if (rate === undefined || quantity == null || !Number.isFinite(quantity) || quantity < 0) continue;
    total = (total ?? 0) + rate * quantity;
  }
  return total === undefined ? undefined : Math.round(total);
}

/**
 * The usage an upstream reported (or, when it reports none, the outputs as units) with its cost
 * when the price entry prices any of it; undefined when there is neither usage nor a cost.
 */
export function pricedUsage(reported: UpstreamUsage | undefined, outputs: number, terms: readonly PriceTerm[]): UpstreamUsage | undefined {
  const cost = costMicroUsd(terms);
  if (cost === undefined) return reported;
  return { ...(reported ?? { units: 'outputs', amount: outputs }), costMicroUsd: cost };
}
