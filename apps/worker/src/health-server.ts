// The worker's small HTTP port: liveness and readiness for orchestrators, Prometheus metrics, and
// counters for tests and operators.
import http from 'node:http';
import { checkText, ENDPOINT_UNAUTHORIZED, endpointAccess, readinessAnswer, ReadinessChecks, renderMetrics } from '@mediagen/metrics';
import { pingDb } from '@mediagen/db';
import type { WorkerContext } from './context';

const json = (res: http.ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));

const within = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timed out')), ms).unref())]);

/**
 * Postgres and Redis each answer within WORKER_READY_TIMEOUT_MS; the message names what failed. The
 * probe's `SELECT 1` may first open a pooled connection, which on a loaded machine takes more than
 * the round trip itself: the limit is generous for that, yet a cut database still reads 503.
 */
async function readiness(ctx: WorkerContext): Promise<ReadinessChecks> {
  const limit = ctx.config.WORKER_READY_TIMEOUT_MS;
  const [pg, redis] = await Promise.allSettled([
    within(pingDb(ctx.db), limit),
    // The worker's connections queue commands while Redis is away (BullMQ needs that), so a ping
    // would wait for the reconnect: report the connection state instead of waiting for it.
    ctx.redis.status === 'ready' ? within(ctx.redis.ping(), limit) : Promise.reject(new Error(`connection ${ctx.redis.status}`)),
  ]);
  return { postgres: checkText(pg), redis: checkText(redis) };
}

/**
 * The gateway's rules (packages/metrics endpoint-access.ts, readiness.ts): /metrics and /stats
 * (counters, memory) need `Authorization: Bearer <METRICS_TOKEN or ADMIN_TOKEN>` in production, and
 * /healthz then says only whether the worker runs; /readyz names a failing dependency
 * without the driver's text unless the caller shows one of those tokens, in every environment.
 * Outside production /metrics and /stats stay open: the port is internal, and tests and the
 * benchmark read the counters.
 */
export function startHealthServer(
  ctx: WorkerContext,
  port: number,
  isRunning: () => boolean,
  auth?: { token: string; metricsToken?: string; required: boolean },
): http.Server {
  const authenticated = auth ? endpointAccess({ ADMIN_TOKEN: auth.token, METRICS_TOKEN: auth.metricsToken }) : () => false;
  const allowed = (req: http.IncomingMessage) => !auth?.required || authenticated(req.headers.authorization);
  const server = http.createServer((req, res) => {
    const route = req.method === 'GET' ? req.url : undefined;
    if ((route === '/metrics' || route === '/stats') && !allowed(req)) {
      return json(res, 401, ENDPOINT_UNAUTHORIZED);
    }
    if (route === '/healthz' && auth?.required) {
      const ok = isRunning();
      json(res, ok ? 200 : 503, { ok, app: 'worker' });
    } else if (route === '/healthz' || route === '/stats') {
      const ok = isRunning();
      json(res, ok ? 200 : 503, { ok, app: 'worker', pid: process.pid, stats: ctx.stats, memory: process.memoryUsage() });
    } else if (route === '/readyz') {
      // Stopping workers take no new jobs: not ready, whatever the dependencies say.
      if (!isRunning()) return json(res, 503, { status: 'not_ready', code: 'service_unavailable', error: 'Worker is shutting down' });
      readiness(ctx).then(
        (checks) => {
          const answer = readinessAnswer(checks, authenticated(req.headers.authorization));
          json(res, answer.status, answer.body);
        },
        () => json(res, 503, { status: 'not_ready', code: 'service_unavailable', error: 'Readiness check failed' }),
      );
    } else if (route === '/metrics') {
      renderMetrics(ctx.metrics.registry).then(
        ({ contentType, body }) => res.writeHead(200, { 'Content-Type': contentType }).end(body),
        (err: Error) => json(res, 500, { error: err.message, code: 'internal_error' }),
      );
    } else {
      json(res, 404, { error: 'Not found', code: 'not_found' });
    }
  });
  server.listen(port);
  return server;
}
