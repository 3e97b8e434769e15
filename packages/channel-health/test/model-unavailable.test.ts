// Upstream models a channel's upstream does not know: marked per channel and upstream model (one
// model's mark leaves the channel's other models alone), shown in the channel view, recorded as the
// channel's last error without touching its breaker, and cleared by a channel check that finds the
// model again (never by one that does not).
import { randomBytes } from 'node:crypto';
import IORedis from 'ioredis';
import {
  clearModelUnavailable, createChannelHealth, isModelUnavailable, markModelUnavailable, readChannelViews, saveCheckResults, unavailableModels,
} from '../src';

const redis = new IORedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const prefix = `test:unavailable:${randomBytes(4).toString('hex')}`;

afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

it('marks one upstream model of one channel, shows it, and clears it by a passing check only', async () => {
  const health = createChannelHealth(redis, prefix, { failures: 1, windowMs: 60_000, cooldownMs: 60_000 });
  await health.register([{ id: 'gem', models: ['image-d-3-pro-image-preview', 'video-c-3.1-fast'], tier: null, costOrder: 1, enabled: true, maxInFlight: 5 }]);

  expect(await markModelUnavailable(redis, prefix, 'gem', { upstreamModel: 'gemini-3-pro-image-preview', model: 'image-d-3-pro-image-preview', message: 'HTTP 404 NOT_FOUND' })).toBe(true);
  // Met again by another worker: already marked (logged and counted once).
  expect(await markModelUnavailable(redis, prefix, 'gem', { upstreamModel: 'gemini-3-pro-image-preview', model: 'image-d-3-pro-image-preview', message: 'HTTP 404 NOT_FOUND' })).toBe(false);
  expect(await isModelUnavailable(redis, prefix, 'gem', 'gemini-3-pro-image-preview')).toBe(true);
  expect(await isModelUnavailable(redis, prefix, 'gem', 'veo-3.1-fast-generate-001')).toBe(false);
  expect(await isModelUnavailable(redis, prefix, 'other', 'gemini-3-pro-image-preview')).toBe(false);

  // Even with a breaker that opens on one failure, an unknown model leaves it closed.
  expect(await health.record('gem', 'unknown_model', 'upstream model gemini-3-pro-image-preview is unknown or retired')).toBeNull();
  const [view] = await readChannelViews(redis, prefix);
  expect(view).toMatchObject({
    state: 'closed',
    lastError: { kind: 'unknown_model', message: 'upstream model gemini-3-pro-image-preview is unknown or retired' },
    unavailableModels: [expect.objectContaining({ upstreamModel: 'gemini-3-pro-image-preview', model: 'image-d-3-pro-image-preview' })],
  });

  // A check that still does not find it keeps the mark; one that finds it clears it.
  const result = (verdict: string) => ({ channel: 'gem', upstreamModel: 'gemini-3-pro-image-preview', verdict, detail: verdict, ms: 12 });
  expect(await saveCheckResults(redis, prefix, [result('unknown_model')])).toEqual([]);
  expect(await unavailableModels(redis, prefix, 'gem')).toHaveLength(1);
  expect(await saveCheckResults(redis, prefix, [result('ok')])).toEqual([{ channel: 'gem', upstreamModel: 'gemini-3-pro-image-preview' }]);
  expect(await isModelUnavailable(redis, prefix, 'gem', 'gemini-3-pro-image-preview')).toBe(false);
  expect((await readChannelViews(redis, prefix))[0].checks).toEqual([expect.objectContaining({ upstreamModel: 'gemini-3-pro-image-preview', verdict: 'ok', ms: 12 })]);

  // An operator's re-enable clears every mark of the channel.
  await markModelUnavailable(redis, prefix, 'gem', { upstreamModel: 'a', model: 'x', message: '' });
  await markModelUnavailable(redis, prefix, 'gem', { upstreamModel: 'b', model: 'y', message: '' });
  expect(await clearModelUnavailable(redis, prefix, 'gem')).toBe(1);
  expect(await unavailableModels(redis, prefix, 'gem')).toEqual([]);
});
