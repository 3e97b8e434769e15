// /healthz and /readyz of the gateway: readiness turns 503 and names the dependency when Redis or
// Postgres cannot be reached, and comes back when they do; liveness stays 200 throughout.
import request from 'supertest';
import { loadConfig } from '@mediagen/config';
import { baseTestDatabaseUrl, createTestSchema } from '@mediagen/db/testing';
import { createDeps, closeDeps, GatewayDeps } from '../src/deps';
import { createApp } from '../src/app';
import { startHarness, Harness } from './harness';
import { startTcpProxy, TcpProxy } from '../../../test/e2e/support/tcp-proxy';
import { waitFor } from '../../../test/e2e/support/wait';

jest.setTimeout(30_000);

const REDIS = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');

describe('a gateway started with Redis unreachable (REDIS_URL=redis://127.0.0.1:1)', () => {
  let deps: GatewayDeps;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const schema = await createTestSchema('readyz_noredis');
    drop = schema.drop;
    deps = await createDeps(
      loadConfig({ NODE_ENV: 'test', DATABASE_URL: schema.url, REDIS_URL: 'redis://127.0.0.1:1', REDIS_PREFIX: 'test-noredis', LOG_LEVEL: 'silent' }),
    );
  });
  afterAll(async () => {
    deps.redis.disconnect();
    // The queue waits for a connection that never comes: do not let it hold the test up.
    await Promise.race([closeDeps(deps), new Promise((r) => setTimeout(r, 3000).unref())]);
    await drop();
  });

  it('answers /healthz 200 and /readyz 503 naming Redis', async () => {
    const app = createApp(deps);
    expect((await request(app).get('/healthz')).status).toBe(200);
    const res = await request(app).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ status: 'not_ready', code: 'service_unavailable', postgres: 'ok', redis: 'unavailable' });
    // The reason only for the metrics or admin token (the worker's rule too: packages/metrics readiness.ts).
    const detail = await request(app).get('/readyz').set('Authorization', `Bearer ${deps.config.ADMIN_TOKEN}`);
    expect(detail.status).toBe(503);
    expect(detail.body.redis).not.toMatch(/^(ok|unavailable)$/);
  });
});

describe('a gateway whose Redis and Postgres connections go through a proxy that is cut', () => {
  let h: Harness;
  let redisProxy: TcpProxy;
  let pgProxy: TcpProxy;
  beforeAll(async () => {
    redisProxy = await startTcpProxy(Number(REDIS.port || 6379), REDIS.hostname);
    const pg = new URL(baseTestDatabaseUrl());
    pgProxy = await startTcpProxy(Number(pg.port || 5432), pg.hostname);
    h = await startHarness('readyz', { REDIS_URL: redisProxy.url('redis') }, { databaseUrl: (url) => pgProxy.via(url) });
  });
  afterAll(async () => {
    await redisProxy.restore().catch(() => undefined);
    await pgProxy.restore().catch(() => undefined);
    await h.close();
    await Promise.all([redisProxy.close(), pgProxy.close()]);
  });

  it('turns 503 naming Redis while Redis is unreachable, and ready again after', async () => {
    expect((await request(h.app).get('/readyz')).status).toBe(200);
    await redisProxy.cut();
    const down = await request(h.app).get('/readyz');
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ code: 'service_unavailable', postgres: 'ok' });
    expect(down.body.redis).not.toBe('ok');
    expect((await request(h.app).get('/healthz')).status).toBe(200);
    await redisProxy.restore();
    await waitFor(async () => (await request(h.app).get('/readyz')).status === 200, 10_000, '/readyz ready again');
  });

  it('turns 503 naming Postgres while Postgres is unreachable', async () => {
    await pgProxy.cut();
    const down = await request(h.app).get('/readyz');
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ code: 'service_unavailable', redis: 'ok' });
    expect(down.body.postgres).not.toBe('ok');
    await pgProxy.restore();
    await waitFor(async () => (await request(h.app).get('/readyz')).status === 200, 10_000, '/readyz ready again');
  });
});
