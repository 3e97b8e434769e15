// POST /hooks/upstream/* is limited per client address (UPSTREAM_HOOKS_RATE_LIMIT_PER_MINUTE):
// the route takes no credential, and each callback costs a lookup and may cost a signature check.
import request from 'supertest';
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
