// POST /hooks/upstream/* is limited per client address (UPSTREAM_HOOKS_RATE_LIMIT_PER_MINUTE):
// the route takes no credential, and each callback costs a lookup and may cost a signature check.
// A callback whose URL carries its task's token is neither counted nor refused.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { newId } from '@mediagen/db';
import { callbackSecret, callbackUrl } from '@mediagen/providers';
import { Harness, startHarness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness('hooks_limit', { UPSTREAM_HOOKS_RATE_LIMIT_PER_MINUTE: '5' });
});
afterAll(async () => {
  await h?.close();
});

it('answers 429 with Retry-After past the limit, before reading the callback', async () => {
  const codes: number[] = [];
  for (let i = 0; i < 5; i++) codes.push((await request(h.app).post('/hooks/upstream/no-such-channel').send({ id: `x${i}` })).status);
  expect(codes).toEqual([404, 404, 404, 404, 404]);
  const over = await request(h.app).post('/hooks/upstream/no-such-channel').send({ id: 'x6' });
  expect(over.status).toBe(429);
  expect(over.body).toMatchObject({ code: 'rate_limited' });
  expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
  // Other routes are not affected.
  expect((await request(h.app).get('/healthz')).status).toBe(200);
});

describe('with a limit of 100 a minute or more', () => {
  let g: Harness;
  beforeAll(async () => {
    g = await startHarness('hooks_reserved', { UPSTREAM_HOOKS_RATE_LIMIT_PER_MINUTE: '1000' });
  });
  afterAll(async () => {
    await g?.close();
  });

  it('admits an address\'s callbacks from a reservation, without a Redis round trip each', async () => {
    expect((await request(g.app).post('/hooks/upstream/no-such-channel').send({ id: 'first' })).status).toBe(404);
    // The first callback reserved a batch (1% of the limit) of the address's window in Redis.
    const keys = await g.deps.redis.keys(`${g.deps.config.REDIS_PREFIX}:ip:hooks:*`);
    expect(keys).toHaveLength(1);
    expect(await g.deps.redis.get(keys[0])).toBe('10');
    // From here Redis would never answer a rate-limit script: the next callbacks are still answered
    // (the unknown channel's 404), from what this gateway reserved.
    const redis = g.deps.redis as unknown as Record<string, unknown>;
    const saved = { hit: redis.rateLimitHit, reserve: redis.rateLimitReserve };
    redis.rateLimitHit = redis.rateLimitReserve = () => new Promise(() => undefined);
    try {
      const codes: number[] = [];
      for (let i = 0; i < 4; i++) codes.push((await request(g.app).post('/hooks/upstream/no-such-channel').timeout(5_000).send({ id: `x${i}` })).status);
      expect(codes).toEqual([404, 404, 404, 404]);
    } finally {
      redis.rateLimitHit = saved.hit;
      redis.rateLimitReserve = saved.reserve;
    }
    expect(await g.deps.redis.get(keys[0])).toBe('10');
  });
});

describe('callbacks with their task\'s token', () => {
  let g: Harness;
  let dir: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-hooks-limit-'));
    const file = path.join(dir, 'channels.json');
    fs.writeFileSync(file, JSON.stringify({ channels: [{ id: 'ark', protocol: 'modelark', baseUrl: 'https://ark.example/api/v3', apiKey: 'k', costOrder: 1, models: { 'video-b-2.5': 'dreamina-seedance-2-5-260628' } }] }));
    g = await startHarness('hooks_token', { UPSTREAM_HOOKS_RATE_LIMIT_PER_MINUTE: '5', PROVIDER_CONFIG: file });
  });
  afterAll(async () => {
    await g?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const withToken = (taskId: string) => {
    const url = new URL(callbackUrl('http://x', callbackSecret(g.deps.config), 'ark', taskId));
    return request(g.app).post(`${url.pathname}${url.search}`).send({ id: 'cgt-1', status: 'succeeded' });
  };

  it('are all answered, however many an address sends, and leave the limit to the others', async () => {
    // A provider finishing renders faster than the limit: 12 callbacks in the window of a limit of 5.
    const codes: number[] = [];
    for (let i = 0; i < 12; i++) codes.push((await withToken(newId())).status);
    expect(codes).toEqual(Array(12).fill(200));
    expect(await g.deps.redis.keys(`${g.deps.config.REDIS_PREFIX}:ip:hooks:*`)).toEqual([]);
    // Callbacks without a token (or with a wrong one) from the same address still count, as before.
    const forged = () => request(g.app).post(`/hooks/upstream/ark?task=${newId()}&token=AAAA`).send({ id: 'cgt-1' });
    const refused: number[] = [];
    for (let i = 0; i < 6; i++) refused.push((await forged()).status);
    expect(refused).toEqual([401, 401, 401, 401, 401, 429]);
    // The address is over its limit, and the upstream's own callbacks still get through.
    expect((await withToken(newId())).body).toEqual({ received: true, woken: false });
    expect((await forged()).status).toBe(429);
  });
});
