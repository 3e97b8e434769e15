// Counts every request by method, route pattern and status, with its latency (packages/metrics).
// The route label must be the pattern (`/api/video/tasks/:taskId`), never the URL: an id in a label
// makes one time series per task. Express knows the pattern only inside the router that matched,
// and resets req.baseUrl when an error leaves that router, so the pattern is captured at the
// moment the router assigns req.route (and the deepest mount path, for answers no route gave).
import type { Request, RequestHandler } from 'express';
import type { HttpMetrics } from '@mediagen/metrics';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

function trackRoute(req: Request): () => string {
  let baseUrl = req.baseUrl ?? '';
  let deepest = baseUrl;
  let route: unknown;
  let pattern: string | undefined;
  Object.defineProperty(req, 'baseUrl', {
    configurable: true,
    enumerable: true,
    get: () => baseUrl,
    set(v: string) {
      baseUrl = v;
      if (v.length > deepest.length) deepest = v;
    },
  });
  Object.defineProperty(req, 'route', {
    configurable: true,
    enumerable: true,
    get: () => route,
    set(v: { path?: unknown } | undefined) {
      route = v;
      if (typeof v?.path === 'string') pattern = baseUrl + v.path;
    },
  });
  // Unmatched paths are one label, whatever the URL (scanners would otherwise add a series each).
  return () => pattern ?? (deepest ? `${deepest}/*` : 'unmatched');
}

export function httpMetrics(m: HttpMetrics): RequestHandler {
  return (req, res, next) => {
    const start = process.hrtime.bigint();
    const routeOf = trackRoute(req);
    const done = () => {
      res.removeListener('finish', done);
      res.removeListener('close', done);
      const labels = { method: METHODS.has(req.method) ? req.method : 'OTHER', route: routeOf(), status: String(res.statusCode) };
      m.requests.inc(labels);
      m.duration.observe(labels, Number(process.hrtime.bigint() - start) / 1e9);
    };
    res.on('finish', done);
    res.on('close', done);
    next();
  };
}
