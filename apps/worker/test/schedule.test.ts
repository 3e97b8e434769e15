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
});

describe('failure messages', () => {
  it('say what happened in words', () => {
    expect(failureMessage('timeout', { timeoutMs: 21_600_000 })).toMatch(/within 6 hours/);
    expect(failureMessage('timeout', { timeoutMs: 4_000 })).toMatch(/within 4 seconds/);
    expect(failureMessage('generation_failed', { channelsTried: 3 })).toMatch(/any of the 3 channels/);
    expect(failureMessage('content_violation')).toMatch(/content policy/);
  });
});
