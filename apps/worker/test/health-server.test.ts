// The worker's health port follows the gateway's rules (one shared implementation in
// packages/metrics): /metrics and /stats accept METRICS_TOKEN as well as ADMIN_TOKEN, and /readyz
// says only ok/unavailable per dependency unless the caller shows one of those tokens.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWorkerMetrics } from '@mediagen/metrics';
import { startHealthServer } from '../src/health-server';

const ADMIN = 'admin-token-0123456789';
const METRICS = 'metrics-token-0123456789';
const DRIVER_TEXT = 'password authentication failed for user "mediagen" at 10.20.30.40:5432';

function get(port: number, path: string, auth?: string) {
  return new Promise<{ status: number; body: string }>((resolve, reject) =>
    http
      .get({ port, path, headers: auth ? { Authorization: `Bearer ${auth}` } : {} }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c)).on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject),
  );
}

async function serve(required: boolean, healthy = false) {
  const ctx = {
    stats: { steps: 1 },
    metrics: createWorkerMetrics(),
    config: { WORKER_READY_TIMEOUT_MS: 1000 },
    db: { $queryRaw: () => (healthy ? Promise.resolve([{ '?column?': 1 }]) : Promise.reject(new Error(DRIVER_TEXT))) },
    redis: { status: healthy ? 'ready' : 'reconnecting', ping: () => Promise.resolve('PONG') },
  } as never;
  const server = startHealthServer(ctx, 0, () => true, { token: ADMIN, metricsToken: METRICS, required } as never);
  await new Promise((r) => server.once('listening', r));
  return { server, port: (server.address() as AddressInfo).port };
}

describe('in production', () => {
  it('/metrics and /stats accept METRICS_TOKEN and ADMIN_TOKEN, nothing else', async () => {
    const { server, port } = await serve(true);
    try {
      for (const path of ['/metrics', '/stats']) {
        expect((await get(port, path)).status).toBe(401);
        expect((await get(port, path, 'wrong-token-0123456789')).status).toBe(401);
        expect((await get(port, path, METRICS)).status).toBe(200);
        expect((await get(port, path, ADMIN)).status).toBe(200);
      }
    } finally {
      server.close();
    }
  });
});

describe.each([true, false])('/readyz (production: %s)', (required) => {
  it('names the failing dependency without driver text unless authenticated', async () => {
    const { server, port } = await serve(required);
    try {
      const open = await get(port, '/readyz');
      expect(open.status).toBe(503);
      expect(JSON.parse(open.body)).toEqual({ status: 'not_ready', code: 'service_unavailable', error: 'Dependencies unavailable', postgres: 'unavailable', redis: 'unavailable' });
      const detailed = await get(port, '/readyz', METRICS);
      expect(detailed.status).toBe(503);
      expect(JSON.parse(detailed.body)).toMatchObject({ postgres: DRIVER_TEXT, redis: 'connection reconnecting' });
    } finally {
      server.close();
    }
  });
  it('is 200 {status: ready} when both answer', async () => {
    const { server, port } = await serve(required, true);
    try {
      expect(await get(port, '/readyz')).toEqual({ status: 200, body: JSON.stringify({ status: 'ready' }) });
    } finally {
      server.close();
    }
  });
});
