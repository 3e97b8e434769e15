// GET /metrics (Prometheus text format) behind METRICS_TOKEN (read-only, for the scraper) or the
// admin token: the gateway's own counters plus the deployment-wide gauges read from Redis at scrape time (queue depth, renders in flight, breakers).
import { Router } from 'express';
import { endpointAccess, renderMetrics } from '@mediagen/metrics';
import type { GatewayDeps } from '../deps';
import { AppError } from '@mediagen/errors';
import { guardAuth } from '../middleware/ip-limits';

export function metricsRouter(deps: GatewayDeps): Router {
  const r = Router();
  const allowed = endpointAccess(deps.config); // METRICS_TOKEN or ADMIN_TOKEN, as the worker's port
  r.get('/metrics', async (req, res) => {
    // Failed tries count against the address like the admin token's (ip-limits.ts).
    const ok = allowed(req.headers.authorization);
    await guardAuth(
      deps,
      req,
      () => {
        if (!ok) throw new AppError('unauthorized', 'GET /metrics needs "Authorization: Bearer <METRICS_TOKEN>"', undefined, undefined, { 'WWW-Authenticate': 'Bearer realm="metrics"' });
      },
      () => ok,
    );
    const { contentType, body } = await renderMetrics(deps.metrics.registry);
    res.type(contentType).send(body);
  });
  return r;
}
