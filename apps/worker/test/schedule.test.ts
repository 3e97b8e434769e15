import { channelSchema } from '@mediagen/providers';
import { backoffMs, pollDelayMs } from '../src/schedule';
import { failureMessage } from '@mediagen/settle';

describe('backoff', () => {
  it('grows exponentially with jitter and a cap', () => {
    for (let i = 0; i < 50; i++) {
      expect(backoffMs(1)).toBeGreaterThanOrEqual(400);
      expect(backoffMs(1)).toBeLessThanOrEqual(600);
      expect(backoffMs(4)).toBeGreaterThanOrEqual(3200);
      expect(backoffMs(30)).toBeLessThanOrEqual(72_000);
    }
  });

  it('never retries before Retry-After', () => {
    expect(backoffMs(1, 5_000)).toBe(5_000);
  });
});

describe('poll cadence', () => {
  const channel = channelSchema.parse({ id: 'c', baseUrl: 'http://x', apiKey: 'k', costOrder: 1, models: { m: 'm' }, poll: { firstMs: 1000, minMs: 2000, maxMs: 60_000 } });

  it('asks about a render about every tenth of its age, within the channel bounds', () => {
    expect(pollDelayMs(channel, 1_000)).toBe(2_000);
    expect(pollDelayMs(channel, 300_000)).toBe(30_000);
    expect(pollDelayMs(channel, 3 * 3600_000)).toBe(60_000);
  });

  it('keeps the channel under its status-call limit: each render waits at least its share', () => {
    const limited = channelSchema.parse({ ...channel, poll: { firstMs: 1000, minMs: 2000, maxMs: 60_000, maxPerSecond: 50 } });
    // 10 renders in flight at 50 calls/s: the age-based delay is the larger one, unchanged.
    expect(pollDelayMs(limited, 300_000, 10)).toBe(30_000);
    // 5,000 renders: 100 s each, past maxMs too; 5,000 renders / 100 s = the 50 calls/s allowed.
    expect(pollDelayMs(limited, 300_000, 5_000)).toBe(100_000);
    expect(pollDelayMs(limited, 1_000, 200)).toBe(4_000);
    // Channels without a limit ignore the count.
    expect(pollDelayMs(channel, 1_000, 5_000)).toBe(2_000);
  });

  it('asks again within a tenth of the render time, so a render is seen at most ~10% late', () => {
    const quick = channelSchema.parse({ ...channel, poll: { firstMs: 100, minMs: 100, maxMs: 60_000 } });
    for (const age of [2_000, 5_000, 20_000, 180_000]) expect(pollDelayMs(quick, age) / age).toBeLessThanOrEqual(0.1);
  });
});

describe('failure messages', () => {
  it('say what happened in words', () => {
    expect(failureMessage('timeout', { timeoutMs: 21_600_000 })).toMatch(/within 6 hours/);
    expect(failureMessage('timeout', { timeoutMs: 4_000 })).toMatch(/within 4 seconds/);
    expect(failureMessage('generation_failed', { channelsTried: 3 })).toMatch(/any of the 3 channels/);
    expect(failureMessage('content_violation')).toMatch(/content policy/);
  });
});
