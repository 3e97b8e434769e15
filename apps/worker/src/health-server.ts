// The worker's small HTTP port: liveness for orchestrators, and counters for tests and operators.
import http from 'node:http';
import type { WorkerContext } from './context';

export function startHealthServer(ctx: WorkerContext, port: number, isRunning: () => boolean): http.Server {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url !== '/healthz' && req.url !== '/stats')) {
      res.writeHead(404, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: 'Not found', code: 'not_found' }));
      return;
    }
    const ok = isRunning();
    res
      .writeHead(ok ? 200 : 503, { 'Content-Type': 'application/json' })
      .end(JSON.stringify({ ok, app: 'worker', pid: process.pid, stats: ctx.stats, memory: process.memoryUsage() }));
  });
  server.listen(port);
  return server;
}
