// Counts every request by method, route pattern and status, with its latency (packages/metrics).
// The route label must be the pattern (`/api/video/tasks/:taskId`), never the URL: an id in a label
// makes one time series per task. Express knows the full pattern only while the router that matched
// runs (req.baseUrl is reset when an error leaves it), so the pattern is captured when the router
// assigns req.route: an accessor on the app's request prototype, installed once, so requests pay
// no per-request defineProperty (which also turns objects into slow dictionaries).
// Answers are counted in packages/metrics' plain numbers (countRequest), added to the prom-client
// metrics when /metrics is scraped.
import { performance } from 'node:perf_hooks';
import type { Request, RequestHandler } from 'express';
import { countRequest, routeMetricsOf, type HttpMetrics, type RouteMetrics } from '@mediagen/metrics';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const ROUTE = Symbol('route');
const PATTERN = Symbol('routePattern');
type Tracked = Request & { [ROUTE]?: unknown; [PATTERN]?: string };

const installed = new WeakSet<object>();
function installRouteTracking(proto: object): void {
  if (installed.has(proto)) return;
  installed.add(proto);
  Object.defineProperty(proto, 'route', {
    configurable: true,
    get(this: Tracked) {
      return this[ROUTE];
    },
    set(this: Tracked, v: { path?: unknown } | undefined) {
      this[ROUTE] = v;
      if (typeof v?.path === 'string') this[PATTERN] = (this.baseUrl ?? '') + v.path;
    },
  });
}

/** Unmatched paths share one label whatever the URL (scanners would otherwise add a series each). */
const routeOf = (req: Tracked) => req[PATTERN] ?? (req.baseUrl ? `${req.baseUrl}/*` : 'unmatched');

/** The counts of one (method, route pattern, status), kept in the metrics object (one per deps). */
export const routeMetrics = routeMetricsOf;

/** Counts one answered request and its latency since `start` (performance.now()). */
export function observeRequest(c: RouteMetrics, start: number): void {
  countRequest(c, (performance.now() - start) / 1000);
}

/**
 * The middleware of the Express chain. The cached-poll lane (routes/cached-poll.ts) counts its
 * answers with the same routeMetrics counts and observeRequest.
 */
export function httpMetrics(m: HttpMetrics): RequestHandler {
  return (req, res, next) => {
    // Express has given the request its app's prototype by now (its init middleware runs first).
    installRouteTracking(Object.getPrototypeOf(req));
    const start = performance.now();
    const done = () => {
      res.removeListener('finish', done);
      res.removeListener('close', done);
      observeRequest(routeMetrics(m, METHODS.has(req.method) ? req.method : 'OTHER', routeOf(req as Tracked), String(res.statusCode)), start);
    };
    res.on('finish', done);
    res.on('close', done);
    next();
  };
}
