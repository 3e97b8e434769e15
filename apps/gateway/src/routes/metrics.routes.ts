// GET /metrics (Prometheus text format) behind the admin token: the gateway's own counters plus the
// deployment-wide gauges read from Redis at scrape time (queue depth, renders in flight, breakers).
import { Router } from 'express';
import { renderMetrics } from '@mediagen/metrics';
import type { GatewayDeps } from '../deps';
import { adminAuth } from '../middleware/admin-auth';

export function metricsRouter(deps: GatewayDeps): Router {
  const r = Router();
  r.get('/metrics', adminAuth(deps), async (_req, res) => {
    const { contentType, body } = await renderMetrics(deps.metrics.registry);
    res.type(contentType).send(body);
  });
  return r;
}
