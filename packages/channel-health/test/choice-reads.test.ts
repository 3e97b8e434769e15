// What choosing a task's channel reads goes out as one pipeline on a single server (one socket
// write), and answers what the separate reads would: the unavailable marks, the disabled set, the
// breakers that admit without their script. pickChannel given those answers runs the breaker's
// script only for channels that were not closed, so a cool-down still ends in exactly one probe.
import { randomBytes } from 'node:crypto';
import IORedis from 'ioredis';
import { createChannelHealth, isModelUnavailable, markModelUnavailable, pickChannel, readChoiceState, setChannelDisabled } from '../src';

const redis = new IORedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const prefix = `test:choice:${randomBytes(4).toString('hex')}`;
let clock = Date.now();
const health = createChannelHealth(redis, prefix, { failures: 1, windowMs: 10_000, cooldownMs: 300 }, () => clock);

afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

/** Socket writes of `redis` while `fn` runs. */
async function writes<T>(fn: () => Promise<T>): Promise<{ result: T; n: number }> {
  const stream = (redis as unknown as { stream: { write: (...a: unknown[]) => boolean } }).stream;
  const write = stream.write;
  let n = 0;
  stream.write = function (this: unknown, ...a: unknown[]) {
    n += 1;
    return write.apply(this, a);
  };
  try {
    return { result: await fn(), n };
  } finally {
    stream.write = write;
  }
}

it('reads the marks, the disabled set and the breaker states in one write', async () => {
  await markModelUnavailable(redis, prefix, 'retired', { upstreamModel: 'm-old', model: 'video', message: 'gone' });
  await setChannelDisabled(redis, prefix, 'stopped', true);
  expect(await health.record('broken', 'failed', 'boom')).toBe('open');
  const channels = [
    { id: 'retired', upstreamModel: 'm-old' },
    { id: 'fine', upstreamModel: 'm' },
    { id: 'stopped', upstreamModel: 'm' },
    { id: 'broken', upstreamModel: null },
  ];
  const { result: state, n } = await writes(() => readChoiceState(redis, prefix, channels));
  expect(n).toBe(1);
  expect(state).toEqual({ unavailable: new Set(['retired']), disabled: new Set(['stopped']), admitting: new Set(['retired', 'fine', 'stopped']) });
  // The same answers as the reads one by one.
  expect(await isModelUnavailable(redis, prefix, 'retired', 'm-old')).toBe(true);
  expect(await isModelUnavailable(redis, prefix, 'fine', 'm')).toBe(false);
});

it('pickChannel with those answers: a closed breaker admits with no script, an open one still asks the script (one probe after the cool-down)', async () => {
  const order = [{ id: 'broken2' }, { id: 'fine2' }];
  expect(await health.record('broken2', 'failed', 'boom')).toBe('open');
  const read = () => readChoiceState(redis, prefix, order.map((c) => ({ id: c.id, upstreamModel: null })));
  const closedOnly = await writes(async () => pickChannel(order, new Set(), health, 't1', await read()));
  // The read, and the script for the open channel (which still refuses); the closed one takes the task.
  expect(closedOnly.result).toMatchObject({ channel: { id: 'fine2' }, admission: 'closed' });
  expect(closedOnly.n).toBe(2);
  clock += 301;
  const first = await pickChannel(order, new Set(), health, 't2', await read());
  const second = await pickChannel(order, new Set(), health, 't3', await read());
  expect(first).toMatchObject({ channel: { id: 'broken2' }, admission: 'probe', moved: 'half-open' });
  expect(second).toMatchObject({ channel: { id: 'fine2' }, admission: 'closed' });
});
