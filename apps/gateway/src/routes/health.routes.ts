// /healthz: the process lives. /readyz: Postgres and Redis answer, one round trip each; 503 names
// the dependency that does not, tersely (ok/unavailable): the route is public. The driver's text is
// shown only with the metrics or admin token, the same rule as the worker's (packages/metrics
// readiness.ts). Concurrent probes share the check in flight, so hammering /readyz costs the
// databases one check at a time.
import { Router } from 'express';
import { checkText, endpointAccess, readinessAnswer, ReadinessChecks } from '@mediagen/metrics';
import { pingDb } from '@mediagen/db';
import type { GatewayDeps } from '../deps';

const TIMEOUT_MS = 2_000;

export function healthRouter(deps: GatewayDeps): Router {
  const r = Router();
  const detailed = endpointAccess(deps.config);
  r.get('/healthz', (_req, res) => res.json({ status: 'ok' }));
  let inFlight: Promise<ReadinessChecks> | null = null;
  const probe = async (): Promise<ReadinessChecks> => {
    const timeout = <T>(p: Promise<T>) =>
      Promise.race([p, new Promise<T>((_, rej) => setTimeout(() => rej(new Error('timed out')), TIMEOUT_MS).unref())]);
    const [pg, redis] = await Promise.allSettled([timeout(pingDb(deps.db)), timeout(deps.redis.ping())]);
    return { postgres: checkText(pg), redis: checkText(redis) };
  };
  r.get('/readyz', async (req, res) => {
    if (!inFlight) inFlight = probe().finally(() => (inFlight = null));
    const answer = readinessAnswer(await inFlight, detailed(req.headers.authorization));
    res.setHeader('Cache-Control', 'no-store');
    res.status(answer.status).json(answer.body);
  });
  return r;
}
