// HTTP request counters of the gateway. `route` is the Express route pattern
// (`/api/video/tasks/:taskId`), never the raw URL: task ids in labels would make one series per task.
import { Counter, Histogram, Registry } from 'prom-client';

const LABELS = ['method', 'route', 'status'] as const;

/** The counter and histogram children of one (method, route pattern, status). */
export interface RouteMetrics {
  count: ReturnType<Counter<(typeof LABELS)[number]>['labels']>;
  time: ReturnType<Histogram<(typeof LABELS)[number]>['labels']>;
}

export interface HttpMetrics {
  requests: Counter<(typeof LABELS)[number]>;
  duration: Histogram<(typeof LABELS)[number]>;
  /** Label-bound children by "method status route", made on first use: skips hashing the labels per request. */
  routes: Map<string, RouteMetrics>;
}

export function httpMetrics(registry: Registry): HttpMetrics {
  return {
    requests: new Counter({
      name: 'mediagen_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status code',
      labelNames: LABELS,
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'mediagen_http_request_duration_seconds',
      help: 'HTTP request latency from arrival to the last byte of the response, by method, route pattern and status',
      labelNames: LABELS,
      // Polls answer in milliseconds; submits with reference media take seconds (MEDIA_TIMEOUT_MS 8 s).
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    routes: new Map(),
  };
}
