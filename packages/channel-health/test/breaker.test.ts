// The shared circuit breaker on real Redis: a streak of failures opens it, the cool-down ends in a
// single half-open probe, the probe's outcome closes or re-opens it, and pickChannel skips open
// channels (and falls back to the least recently failed one when every channel is open).
import { randomBytes } from 'node:crypto';
import IORedis from 'ioredis';
import { createChannelHealth, ChannelHealth, pickChannel, readChannelViews, REGISTRY_REFRESH_MS, REGISTRY_TTL_MS } from '../src';

const redis = new IORedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const prefix = `test:breaker:${randomBytes(4).toString('hex')}`;
let n = 0;
/** The breaker's clock: tests move it past a window or a cool-down instead of waiting one out. */
let clock = Date.now();
const advance = (ms: number) => (clock += ms);
/** A fresh set of channels (own key space) per test. */
const fresh = (settings = { failures: 3, windowMs: 10_000, cooldownMs: 300 }) => {
  const p = `${prefix}:${++n}`;
  return { p, health: createChannelHealth(redis, p, settings, () => clock) };
};

afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

it('opens after N consecutive failures; a success in between resets the streak', async () => {
  const { health } = fresh();
  expect(await health.record('a', 'failed', 'x')).toBeNull();
  expect(await health.record('a', 'transient', 'x')).toBeNull();
  expect(await health.record('a', 'succeeded')).toBeNull();
  expect(await health.record('a', 'failed', 'x')).toBeNull();
  expect(await health.record('a', 'violation')).toBeNull(); // about the task, not the channel
  expect(await health.record('a', 'transient', 'x')).toBeNull();
  expect(await health.record('a', 'transient', 'HTTP 503')).toBe('open');
  expect((await health.admit('a', 't1')).admission).toBe('open');
});

it('ignores failures spread wider than the window', async () => {
  const { health } = fresh({ failures: 3, windowMs: 150, cooldownMs: 300 });
  await health.record('a', 'failed');
  await health.record('a', 'failed');
  advance(200);
  expect(await health.record('a', 'failed')).toBeNull(); // a new streak of 1
  expect(await health.record('a', 'failed')).toBeNull();
  expect(await health.record('a', 'failed')).toBe('open');
});

it('after the cool-down one task probes; its success closes the breaker', async () => {
  const { health } = fresh();
  for (let i = 0; i < 3; i++) await health.record('a', 'failed');
  advance(350);
  expect(await health.admit('a', 'probe-task')).toEqual({ admission: 'probe', moved: 'half-open' });
  expect((await health.admit('a', 'probe-task')).admission).toBe('probe'); // the same task again
  expect((await health.admit('a', 'other-task')).admission).toBe('open');
  expect(await health.record('a', 'succeeded')).toBe('closed');
  expect((await health.admit('a', 'other-task')).admission).toBe('closed');
});

it('a failed probe opens the breaker for another cool-down', async () => {
  const { health } = fresh();
  for (let i = 0; i < 3; i++) await health.record('a', 'transient');
  advance(350);
  expect((await health.admit('a', 'probe-task')).admission).toBe('probe');
  expect(await health.record('a', 'failed', 'render failed')).toBe('open');
  expect((await health.admit('a', 'next-task')).admission).toBe('open');
  advance(350);
  expect((await health.admit('a', 'next-task')).admission).toBe('probe');
});

it('a probe that never reports lets another task probe after the cool-down', async () => {
  const { health } = fresh();
  for (let i = 0; i < 3; i++) await health.record('a', 'failed');
  advance(350);
  expect((await health.admit('a', 'silent-probe')).admission).toBe('probe');
  expect((await health.admit('a', 'another')).admission).toBe('open');
  advance(350);
  expect((await health.admit('a', 'another')).admission).toBe('probe');
});

it('failures 0 turns the breaker off', async () => {
  const { health } = fresh({ failures: 0, windowMs: 10_000, cooldownMs: 300 });
  for (let i = 0; i < 10; i++) expect(await health.record('a', 'failed')).toBeNull();
  expect((await health.admit('a', 't')).admission).toBe('closed');
});

describe('pickChannel', () => {
  const order = [{ id: 'cheap' }, { id: 'backup' }, { id: 'official' }];
  let health: ChannelHealth;
  beforeEach(() => {
    health = fresh().health;
  });

  it('takes the cheapest untried channel whose breaker is closed', async () => {
    expect((await pickChannel(order, new Set(), health, 't'))?.channel.id).toBe('cheap');
    expect((await pickChannel(order, new Set(['cheap']), health, 't'))?.channel.id).toBe('backup');
    expect(await pickChannel(order, new Set(['cheap', 'backup', 'official']), health, 't')).toBeNull();
  });

  it('skips an open channel', async () => {
    for (let i = 0; i < 3; i++) await health.record('cheap', 'failed');
    expect(await pickChannel(order, new Set(), health, 't')).toMatchObject({ channel: { id: 'backup' }, admission: 'closed' });
  });

  it('with every untried channel open, uses the one that failed longest ago', async () => {
    for (const id of ['backup', 'cheap', 'official']) {
      for (let i = 0; i < 3; i++) await health.record(id, 'failed');
      advance(5);
    }
    expect(await pickChannel(order, new Set(), health, 't')).toMatchObject({ channel: { id: 'backup' }, admission: 'fallback' });
    expect(await pickChannel(order, new Set(['backup']), health, 't')).toMatchObject({ channel: { id: 'cheap' }, admission: 'fallback' });
  });
});

it('readChannelViews shows registered channels with state, recent outcomes and last error', async () => {
  const { p, health } = fresh();
  await health.register([
    { id: 'a', models: ['m1'], tier: null, costOrder: 1, enabled: true, maxInFlight: 10 },
    { id: 'b', models: ['m1'], tier: null, costOrder: 2, enabled: true, maxInFlight: 10 },
  ]);
  await health.record('a', 'succeeded');
  for (let i = 0; i < 3; i++) await health.record('a', 'transient', `submit: HTTP 503 #${i}`);
  await redis.zadd(`${p}:channel-slots:b`, Date.now() + 60_000, 'task-1', Date.now() - 1, 'lapsed-task');
  const [a, b] = await readChannelViews(redis, p, clock);
  expect(a).toMatchObject({
    id: 'a',
    state: 'open',
    recent: { succeeded: 1, transient: 3, failed: 0, windowMinutes: 5 },
    lastError: { kind: 'transient', message: 'submit: HTTP 503 #2' },
    openedAt: expect.any(String),
    openUntil: expect.any(String),
  });
  expect(b).toMatchObject({ id: 'b', state: 'closed', lastError: null, rendersInFlight: 1, openedAt: null });
  advance(350);
  // Past the cool-down: half-open, and no "until" a time that has passed.
  expect((await readChannelViews(redis, p, clock))[0]).toMatchObject({ state: 'half-open', openUntil: null, openedAt: expect.any(String) });
});

it('a channel no running worker reported lately is not listed, and the next report removes it', async () => {
  const { p, health } = fresh();
  const t0 = Date.now();
  const info = (id: string) => ({ id, models: ['m1'], tier: null, costOrder: 1, enabled: true, maxInFlight: 10 });
  // An earlier run (say, development's simulator channels) on the same Redis and prefix.
  await health.register([info('sim-old'), info('live')], t0 - REGISTRY_TTL_MS - 1_000);
  expect((await readChannelViews(redis, p, t0)).map((c) => c.id)).toEqual([]);
  // This run's worker reports `live` (and keeps doing so every REGISTRY_REFRESH_MS).
  await health.register([info('live')], t0);
  expect((await readChannelViews(redis, p, t0)).map((c) => c.id)).toEqual(['live']);
  expect(await redis.hexists(`${p}:channels`, 'sim-old')).toBe(0);
  // A worker that stopped reporting: its channels leave the list once the TTL has passed.
  expect((await readChannelViews(redis, p, t0 + REGISTRY_TTL_MS + 1)).map((c) => c.id)).toEqual([]);
  expect(REGISTRY_REFRESH_MS * 2).toBeLessThan(REGISTRY_TTL_MS);
});

describe('customers cannot trip it', () => {
  it("one account's failed renders count once per streak: its refused prompts never open the channel", async () => {
    const { health } = fresh();
    for (let i = 0; i < 10; i++) expect(await health.record('a', 'failed', 'refused', 'acc_1')).toBeNull();
    expect((await health.admit('a', 't1')).admission).toBe('closed');
  });

  it('failed renders from several accounts open it', async () => {
    const { health } = fresh();
    expect(await health.record('a', 'failed', 'x', 'acc_1')).toBeNull();
    expect(await health.record('a', 'failed', 'x', 'acc_1')).toBeNull();
    expect(await health.record('a', 'failed', 'x', 'acc_2')).toBeNull();
    expect(await health.record('a', 'failed', 'x', 'acc_3')).toBe('open');
  });

  it('infrastructure outcomes count every time, whoever met them', async () => {
    const { health } = fresh();
    expect(await health.record('a', 'transient', 'HTTP 503', 'acc_1')).toBeNull();
    expect(await health.record('a', 'transient', 'HTTP 503', 'acc_1')).toBeNull();
    expect(await health.record('a', 'transient', 'HTTP 503', 'acc_1')).toBe('open');
  });

  it('a success starts a new streak with no accounts remembered', async () => {
    const { health } = fresh();
    await health.record('a', 'failed', 'x', 'acc_1');
    await health.record('a', 'failed', 'x', 'acc_2');
    await health.record('a', 'succeeded');
    expect(await health.record('a', 'failed', 'x', 'acc_1')).toBeNull();
    expect(await health.record('a', 'failed', 'x', 'acc_2')).toBeNull();
    expect(await health.record('a', 'failed', 'x', 'acc_3')).toBe('open');
  });
});
