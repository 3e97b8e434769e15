// The shared backoff formula: doubling from the base, capped, jittered within the given spread.
import { exponentialBackoffMs } from '../src/backoff';

describe('exponentialBackoffMs', () => {
  const b = { baseMs: 500, maxMs: 60_000, jitter: 0 };

  it('doubles from the base with each retry and stops at the cap', () => {
    expect([1, 2, 3, 4, 5].map((n) => exponentialBackoffMs(n, b))).toEqual([500, 1_000, 2_000, 4_000, 8_000]);
    expect(exponentialBackoffMs(8, b)).toBe(60_000);
    expect(exponentialBackoffMs(2_000, b)).toBe(60_000);
  });

  it('treats retry 0 or below as the first', () => {
    expect(exponentialBackoffMs(0, b)).toBe(500);
  });

  it('spreads each delay within the jitter, both ends reachable, in whole milliseconds', () => {
    const j = { ...b, jitter: 0.2 };
    expect(exponentialBackoffMs(3, j, () => 0)).toBe(1_600);
    expect(exponentialBackoffMs(3, j, () => 0.5)).toBe(2_000);
    expect(exponentialBackoffMs(3, j, () => 0.999_999)).toBe(2_400);
    expect(exponentialBackoffMs(30, j, () => 0.999_999)).toBe(72_000);
    expect(Number.isInteger(exponentialBackoffMs(1, { baseMs: 333, maxMs: 1_000, jitter: 0.1 }, () => 0.37))).toBe(true);
  });

  it('draws no random number without jitter', () => {
    const random = jest.fn(() => 0);
    expect(exponentialBackoffMs(2, b, random)).toBe(1_000);
    expect(random).not.toHaveBeenCalled();
  });
});
