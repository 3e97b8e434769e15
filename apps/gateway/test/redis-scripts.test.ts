// The gateway's Lua commands exist on its auto-pipelining Redis connection before the first request:
// one defined on a route's first use, in the tick another request had started a pipeline, crashed
// the process inside ioredis ("results[i] is not iterable", an uncaught TypeError).
import request from 'supertest';
import { GATEWAY_SCRIPTS } from '../src/services/redis-scripts';
import { Harness, startHarness } from './harness';

jest.setTimeout(60_000);

let h: Harness;
beforeAll(async () => {
  h = await startHarness('redis-scripts');
});
afterAll(() => h?.close());

it('every Lua command is defined when the gateway starts, before any request', () => {
  const redis = h.deps.redis as unknown as Record<string, unknown>;
  expect(GATEWAY_SCRIPTS.filter((name) => typeof redis[name] !== 'function')).toEqual([]);
});

it('a first burst mixing per-address limits, account limits and polls answers every request', async () => {
  const a = await h.newAccount();
  const answers = await Promise.all(
    Array.from({ length: 30 }, (_, i) =>
      i % 3 === 0
        ? request(h.app).get(`/files/results/none/${i}.png`)
        : i % 3 === 1
          ? request(h.app).get('/api/image/tasks/does-not-exist').set(a.auth)
          : request(h.app).get('/admin/accounts/x').set({ Authorization: 'Bearer wrong' }),
    ),
  );
  expect(answers.map((r) => r.status).filter((s) => ![404, 401, 429].includes(s))).toEqual([]);
});
