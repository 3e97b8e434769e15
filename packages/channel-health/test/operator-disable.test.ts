// A channel an operator disabled in the console takes no new attempt on any worker (pickChannel
// skips it, even as the all-open fallback), shows as disabled, and takes work again when enabled.
import { randomBytes } from 'node:crypto';
import IORedis from 'ioredis';
import { createChannelHealth, pickChannel, readChannelViews, setChannelDisabled } from '../src';

const redis = new IORedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const prefix = `test:disable:${randomBytes(4).toString('hex')}`;
const settings = { failures: 3, windowMs: 60_000, cooldownMs: 60_000 };
const order = [{ id: 'cheap' }, { id: 'dear' }];

afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

it('skips a disabled channel until it is enabled again', async () => {
  const health = createChannelHealth(redis, prefix, settings);
  await health.register(order.map((c) => ({ id: c.id, models: ['m'], tier: null, costOrder: 1, enabled: true, maxInFlight: 5 })));
  expect((await pickChannel(order, new Set(), health, 't1'))!.channel.id).toBe('cheap');

  await setChannelDisabled(redis, prefix, 'cheap', true);
  expect((await pickChannel(order, new Set(), health, 't2'))!.channel.id).toBe('dear');
  expect((await readChannelViews(redis, prefix)).map((c) => [c.id, c.disabledByOperator])).toEqual([
    ['cheap', true],
    ['dear', false],
  ]);
  // Only disabled channels left: no pick (the task is not sent to a channel an operator stopped).
  expect(await pickChannel(order, new Set(['dear']), health, 't3')).toBeNull();

  await setChannelDisabled(redis, prefix, 'cheap', false);
  expect((await pickChannel(order, new Set(), health, 't4'))!.channel.id).toBe('cheap');
});
