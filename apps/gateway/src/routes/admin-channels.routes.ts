// GET /admin/channels: every channel the workers registered, with its circuit breaker state
// (closed / open / half-open), recent outcome counts, last error and renders in flight.
// Mounted behind the admin token by app.ts.
import { Router } from 'express';
import { readChannelViews } from '@mediagen/channel-health';
import { AppError } from '@mediagen/errors';
import type { GatewayDeps } from '../deps';

export function adminChannelsRouter(deps: GatewayDeps): Router {
  const r = Router();
  r.get('/channels', async (_req, res) => {
    if (deps.redis.status !== 'ready') throw new AppError('service_unavailable', 'Redis unavailable; channel health is kept there');
    res.json({ channels: await readChannelViews(deps.redis, deps.config.REDIS_PREFIX) });
  });
  return r;
}
