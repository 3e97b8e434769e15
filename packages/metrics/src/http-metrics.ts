// HTTP request counters of the gateway. `route` is the Express route pattern
// (`/api/video/tasks/:taskId`), never the raw URL: task ids in labels would make one series per task.
//
// Each answer is counted in plain numbers of its (method, route, status), RouteMetrics below, and
// those are added to the prom-client counter and histogram when the registry is collected (their
// collect() callbacks, run by every scrape before it reads them), so a scrape shows the counts,
// buckets and sums it would show had each answer been observed by prom-client at once. Why: a
// Counter.inc and a Histogram.observe hash the three labels and check them on every call, about
// 4% of the gateway's CPU per cached poll (docs/benchmark.md, "The poll path"); counting here is an
// increment, an add and a walk of at most twelve bounds.
import { Counter, Histogram, Registry } from 'prom-client';
import { histogramFold } from './histogram-fold';

const LABELS = ['method', 'route', 'status'] as const;

/** The duration buckets, in seconds. Polls answer in milliseconds; submits with reference media take seconds (MEDIA_TIMEOUT_MS 8 s). */
export const HTTP_DURATION_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** One (method, route pattern, status)'s answers not yet added to the prom-client metrics. */
export interface RouteMetrics {
  readonly labels: { method: string; route: string; status: string };
  /** Answers since the counter was last collected. */
  count: number;
  /** Observations since the histogram was last collected: per bucket (the last one above the largest bound), and their sum in seconds. */
  readonly buckets: Float64Array;
  sum: number;
  /** Whether it has answered yet: the series are added in the order of their first answer, as prom-client lists them. */
  answered: boolean;
  readonly order: RouteMetrics[];
}

export interface HttpMetrics {
  requests: Counter<(typeof LABELS)[number]>;
  duration: Histogram<(typeof LABELS)[number]>;
  /** The RouteMetrics by "method status route", made on first use (the cached-poll lane makes its own at start). */
  routes: Map<string, RouteMetrics>;
  /** Those that have answered, in the order of their first answer. */
  answered: RouteMetrics[];
}

/** Counts one answer that took `seconds` (as Histogram.observe would place it: the first bound it does not exceed). */
export function countRequest(r: RouteMetrics, seconds: number): void {
  if (!r.answered) {
    r.answered = true;
    r.order.push(r);
  }
  r.count++;
  let i = 0;
  while (i < HTTP_DURATION_BUCKETS.length && seconds > HTTP_DURATION_BUCKETS[i]) i++;
  r.buckets[i]++;
  r.sum += seconds;
}

/** The RouteMetrics of (method, route, status), kept in `m` (one per deps). */
export function routeMetricsOf(m: HttpMetrics, method: string, route: string, status: string): RouteMetrics {
  const key = `${method} ${status} ${route}`;
  let r = m.routes.get(key);
  if (r === undefined) {
    r = { labels: { method, route, status }, count: 0, buckets: new Float64Array(HTTP_DURATION_BUCKETS.length + 1), sum: 0, answered: false, order: m.answered };
    m.routes.set(key, r);
  }
  return r;
}

export function httpMetrics(registry: Registry): HttpMetrics {
  const answered: RouteMetrics[] = [];
  const requests = new Counter({
    name: 'mediagen_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status code',
    labelNames: LABELS,
    registers: [registry],
    collect() {
      for (const r of answered) {
        if (r.count === 0) continue;
        this.inc(r.labels, r.count);
        r.count = 0;
      }
    },
  });
  const duration: Histogram<(typeof LABELS)[number]> = new Histogram({
    name: 'mediagen_http_request_duration_seconds',
    help: 'HTTP request latency from arrival to the last byte of the response, by method, route pattern and status',
    labelNames: LABELS,
    buckets: [...HTTP_DURATION_BUCKETS],
    registers: [registry],
    collect() {
      for (const r of answered) {
        fold(r.labels, r.buckets, r.sum);
        r.buckets.fill(0);
        r.sum = 0;
      }
    },
  });
  const fold = histogramFold(duration, HTTP_DURATION_BUCKETS);
  return { requests, duration, routes: new Map(), answered };
}
