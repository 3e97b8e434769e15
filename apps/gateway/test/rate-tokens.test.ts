// The per-account reservations of rate-tokens.ts against a shared window counter that behaves like
// the RESERVE script (one counter, one expiry), with the round trip under the test's control: how
// many requests several gateways admit together, how many they refuse below the limit, and that a
// reservation made ahead never makes a request wait.
import { aheadFor, batchFor, RateTokens, reserveRedis, Verdict } from '../src/middleware/rate-tokens';

/** One Redis window counter, shared by every RateTokens given `connection()`. */
class SharedWindow {
  total = 0;
  private endsAt = 0;
  /** Round trips not answered yet, oldest first (when held). */
  readonly inFlight: Array<() => void> = [];
  hold = false;
  reserved = 0;

  constructor(private readonly windowMs: number) {}

  connection() {
    return {
      rateLimitReserve: (_key: string, windowMs: number, n: number): Promise<[number, number]> => {
        expect(windowMs).toBe(this.windowMs);
        return new Promise((resolve) => {
          const run = () => {
            const now = Date.now();
            if (now >= this.endsAt) {
              this.total = 0;
              this.endsAt = now + this.windowMs;
            }
            this.total += n;
            this.reserved++;
            resolve([this.total, this.endsAt - now]);
          };
          if (this.hold) this.inFlight.push(run);
          else setImmediate(run);
        });
      },
    } as never;
  }

  answerAll(): void {
    this.inFlight.splice(0).forEach((run) => run());
  }
}

const settle = () => new Promise((r) => setImmediate(r));
const take = async (t: RateTokens, limit: number): Promise<Verdict> => t.take('rl:acc', limit);

describe('reservations across gateways', () => {
  it.each([
    [2, 1000],
    [3, 1000],
    [2, 600],
    [4, 10_000],
    [2, 50],
  ])('%i gateways, limit %i: together they admit at most the limit, and refuse at most (batch - 1) per other gateway below it', async (gateways, limit) => {
    const window = new SharedWindow(60_000);
    const gws = Array.from({ length: gateways }, () => new RateTokens(window.connection(), 60_000));
    let admitted = 0;
    let refused = 0;
    // Requests spread over the gateways unevenly and in bursts, until every gateway refuses.
    let seed = limit * gateways;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let round = 0; refused < 20 * gateways && round < 10_000; round++) {
      const burst = 1 + Math.floor(rand() * 12);
      const verdicts = await Promise.all(Array.from({ length: burst }, () => take(gws[Math.floor(rand() * gateways)], limit)));
      for (const v of verdicts) v.admitted ? admitted++ : refused++;
      await settle();
    }
    expect(admitted).toBeLessThanOrEqual(limit);
    expect(limit - admitted).toBeLessThanOrEqual((batchFor(limit) - 1) * (gateways - 1));
  });
});

describe('reserving ahead', () => {
  it('reserves the rest of a batch before the reservation runs out, and requests do not wait for it', async () => {
    const limit = 10_000;
    const batch = batchFor(limit);
    const ahead = aheadFor(limit);
    expect(ahead.at + ahead.n).toBe(batch - 1);
    const window = new SharedWindow(60_000);
    const t = new RateTokens(window.connection(), 60_000);
    expect((await take(t, limit)).admitted).toBe(true); // the first batch: waited for
    expect(window.total).toBe(batch);
    window.hold = true;
    // batch - 1 held: admitted from memory until at most `at` are left, then one reservation of
    // `n` goes out, and the requests after it still answer at once.
    for (let i = 1; i < batch; i++) {
      const v = t.take('rl:acc', limit);
      expect(v).not.toBeInstanceOf(Promise);
      expect((v as Verdict).admitted).toBe(true);
      expect((v as Verdict).remaining).toBe(limit - 1 - i);
    }
    expect(window.inFlight).toHaveLength(1);
    // Now nothing is left: the next request waits for the reservation in flight.
    const waiting = t.take('rl:acc', limit);
    expect(waiting).toBeInstanceOf(Promise);
    window.answerAll();
    expect((await waiting).admitted).toBe(true);
    expect(window.total).toBe(batch + ahead.n);
  });

  it('what a gateway holds unspent never exceeds batch - 1', async () => {
    const limit = 5_000;
    const batch = batchFor(limit);
    const window = new SharedWindow(60_000);
    const t = new RateTokens(window.connection(), 60_000);
    for (let i = 1; i <= 5 * batch; i++) {
      expect((await take(t, limit)).admitted).toBe(true);
      await settle();
      expect(window.total - i).toBeLessThanOrEqual(batch - 1);
    }
  });

  it('requests reserved in one window are not spent in the next', async () => {
    const limit = 1_000;
    const windowMs = 60_000;
    const window = new SharedWindow(windowMs);
    const t = new RateTokens(window.connection(), windowMs);
    expect((await take(t, limit)).admitted).toBe(true);
    // Both clocks move past the window (the counter's Date.now, the reservations' performance.now):
    // a minute passes without waiting for it.
    const dateNow = jest.spyOn(Date, 'now').mockReturnValue(Date.now() + windowMs + 20);
    const perfNow = jest.spyOn(performance, 'now').mockReturnValue(performance.now() + windowMs + 20);
    try {
      // The old window's unspent requests are gone: a new reservation is made in the new window.
      const before = window.reserved;
      expect((await take(t, limit)).admitted).toBe(true);
      expect(window.reserved).toBe(before + 1);
      expect(window.total).toBe(batchFor(limit));
    } finally {
      dateNow.mockRestore();
      perfNow.mockRestore();
    }
  });

  it('admitFromMemory counts nothing when it cannot admit from memory', async () => {
    const limit = 1_000;
    const window = new SharedWindow(60_000);
    const t = new RateTokens(window.connection(), 60_000);
    expect(t.admitFromMemory('rl:acc', limit)).toBeNull(); // nothing reserved yet
    expect(window.reserved).toBe(0);
    await take(t, limit);
    const v = t.admitFromMemory('rl:acc', limit);
    expect(v).toMatchObject({ admitted: true, remaining: limit - 2 });
    expect(t.admitFromMemory('rl:acc', limit + 1)).toBeNull(); // a changed limit needs a reservation
  });
});

describe('the reserving command on a real connection', () => {
  it('is sent at once on an auto-pipelining connection, and leaves other connections as they were', async () => {
    const IORedis = (await import('ioredis')).default;
    const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
    const pipelining = new IORedis(url, { enableAutoPipelining: true });
    const plain = new IORedis(url, { lazyConnect: true });
    try {
      const r = reserveRedis(pipelining);
      const key = `test:rate-tokens:${process.pid}:${Date.now()}`;
      const reply = r.rateLimitReserve(key, 60_000, 5).catch((err: Error) => err);
      // An auto-pipelined command waits in the connection's queue for the end of the turn.
      const queued = pipelining.autoPipelineQueueSize;
      expect(await reply).toEqual([5, 60_000]);
      expect(queued).toBe(0);
      const other = pipelining.get(key); // every other command is still auto-pipelined
      expect(pipelining.autoPipelineQueueSize).toBe(1);
      expect(await other).toBe('5');
      expect(plain.options.autoPipeliningIgnoredCommands).toEqual([]);
      await pipelining.del(key);
    } finally {
      pipelining.disconnect();
      plain.disconnect();
    }
  });
});
