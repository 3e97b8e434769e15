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
