import { Router } from 'express';
import type { GatewayDeps } from '../deps';

/** /healthz: the process lives. /readyz: Postgres and Redis answer (503 with the reason otherwise). */
export function healthRouter(deps: GatewayDeps): Router {
  const r = Router();
  r.get('/healthz', (_req, res) => res.json({ status: 'ok' }));
  r.get('/readyz', async (_req, res) => {
    const timeout = <T>(p: Promise<T>) => Promise.race([p, new Promise<T>((_, rej) => setTimeout(() => rej(new Error('timed out')), 2000).unref())]);
    const checks = await Promise.allSettled([timeout(deps.db.$queryRaw`SELECT 1`), timeout(deps.redis.ping())]);
    const [pg, redis] = checks.map((c) => (c.status === 'fulfilled' ? 'ok' : String((c.reason as Error)?.message ?? c.reason)));
    const ok = pg === 'ok' && redis === 'ok';
    res.status(ok ? 200 : 503).json(ok ? { status: 'ready' } : { status: 'not_ready', code: 'service_unavailable', error: 'Dependencies unavailable', postgres: pg, redis });
  });
  return r;
}
