import { Router } from 'express';
import type { GatewayDeps } from '../deps';

type Check = 'ok' | 'unavailable';
interface Readiness {
  postgres: Check;
  redis: Check;
}

const TIMEOUT_MS = 2_000;

/**
 * /healthz: the process lives. /readyz: Postgres and Redis answer, one round trip each; 503 names
 * the dependency that does not, tersely (no driver error text: the route is public). Concurrent
 * probes share the check in flight, so hammering /readyz costs the databases one check at a time.
 */
export function healthRouter(deps: GatewayDeps): Router {
  const r = Router();
  r.get('/healthz', (_req, res) => res.json({ status: 'ok' }));
  let inFlight: Promise<Readiness> | null = null;
  const probe = async (): Promise<Readiness> => {
    const timeout = <T>(p: Promise<T>) =>
      Promise.race([p, new Promise<T>((_, rej) => setTimeout(() => rej(new Error('timed out')), TIMEOUT_MS).unref())]);
    const [pg, redis] = await Promise.allSettled([timeout(deps.db.$queryRaw`SELECT 1`), timeout(deps.redis.ping())]);
    return { postgres: pg.status === 'fulfilled' ? 'ok' : 'unavailable', redis: redis.status === 'fulfilled' ? 'ok' : 'unavailable' };
  };
  r.get('/readyz', async (_req, res) => {
    if (!inFlight) inFlight = probe().finally(() => (inFlight = null));
    const { postgres, redis } = await inFlight;
    const ok = postgres === 'ok' && redis === 'ok';
    res.setHeader('Cache-Control', 'no-store');
    res
      .status(ok ? 200 : 503)
      .json(ok ? { status: 'ready' } : { status: 'not_ready', code: 'service_unavailable', error: 'Dependencies unavailable', postgres, redis });
  });
  return r;
}
