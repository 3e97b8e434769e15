// Adds observations counted elsewhere (per bucket, with their sum) to a prom-client Histogram's
// series, as if each had been observed: the same bucket counts, count and sum a scrape shows.
// prom-client has no public call for this (observe takes one value), so this writes the series
// record prom-client 15 keeps per label set (`hashMap`: {labels, bucketValues: {[bound]: n}, sum,
// count}, what observe itself updates and get() exports). Its layout is checked on a throwaway
// histogram when the first fold is made: a prom-client that keeps series differently fails there,
// at start, rather than exporting wrong figures.
import { Histogram } from 'prom-client';

interface Series {
  labels: Record<string, string | number>;
  bucketValues: Record<string, number>;
  sum: number;
  count: number;
}

type Internals = { hashMap: Record<string, Series>; upperBounds: readonly number[] };

const internals = (h: Histogram<string>) => h as unknown as Internals;

let checked = false;
function checkLayout(): void {
  if (checked) return;
  const h = new Histogram({ name: 'layout_check', help: 'x', labelNames: ['a'], buckets: [1, 2], registers: [] });
  h.observe({ a: 'x' }, 1.5);
  const all = Object.values(internals(h).hashMap ?? {});
  const s = all[0];
  const ok =
    all.length === 1 &&
    s.labels?.a === 'x' &&
    s.count === 1 &&
    s.sum === 1.5 &&
    s.bucketValues?.['1'] === 0 &&
    s.bucketValues?.['2'] === 1 &&
    Object.keys(s.bucketValues).length === 2 &&
    internals(h).upperBounds?.join() === '1,2';
  if (!ok) throw new Error('prom-client keeps histogram series in a layout histogram-fold.ts does not know: check its version');
  checked = true;
}

/**
 * A fold of observations into histogram `h`: `buckets[i]` observations were at most `bounds[i]`
 * (and above the bound before), `buckets[bounds.length]` above the largest; `sum` their sum.
 */
export type HistogramFold = (labels: Record<string, string>, buckets: ArrayLike<number>, sum: number) => void;

/** Folds into `h`, whose buckets must be `bounds` (checked). */
export function histogramFold(h: Histogram<string>, bounds: readonly number[]): HistogramFold {
  checkLayout();
  if (internals(h).upperBounds.join() !== bounds.join()) throw new Error('histogramFold: bounds differ from the histogram buckets');
  return (labels, buckets, sum) => {
    let count = 0;
    for (let i = 0; i < buckets.length; i++) count += buckets[i];
    if (count === 0) return;
    // zero() creates the series prom-client's way; it is only made for a label set not seen yet,
    // since it would also clear one that exists.
    let s = find(h, labels);
    if (s === undefined) {
      h.zero(labels);
      s = find(h, labels)!;
    }
    for (let i = 0; i < bounds.length; i++) s.bucketValues[bounds[i]] += buckets[i];
    s.count += count;
    s.sum += sum;
  };
}

function find(h: Histogram<string>, labels: Record<string, string>): Series | undefined {
  const keys = Object.keys(labels);
  for (const s of Object.values(internals(h).hashMap)) {
    if (Object.keys(s.labels).length === keys.length && keys.every((k) => s.labels[k] === labels[k])) return s;
  }
  return undefined;
}
