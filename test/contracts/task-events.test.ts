// The task-events pub/sub contract (packages/queue pubsub.ts) between the worker, which publishes,
// and the gateway, which waits on it: both sides use the one channel name and schema, and a
// malformed message is refused on receipt (it wakes no waiting submit).
import { randomUUID } from 'node:crypto';
import IORedis from 'ioredis';
import { createTaskEventPublisher, decodeKeyRevoked, decodePollEntry, decodeTaskEvent, deleteKeysWithPrefix, encodePollEntry, encodeTaskEvent, pollCacheKey, pubsubChannel, SETTLED_POLL_ENTRY_MS } from '@mediagen/queue';
import { TaskEvents } from '../../apps/gateway/src/services/task-events';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-task-events-${randomUUID().slice(0, 8)}`;
const silent = { warn: () => undefined };

let redis: IORedis;
let events: TaskEvents;
beforeAll(async () => {
  redis = new IORedis(REDIS_URL);
  events = new TaskEvents(REDIS_URL, prefix);
  await events.start();
});
afterAll(async () => {
  await events.stop();
  await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

/** Resolves true if the waiter fired, false if it was still waiting when `barrier` settled. */
const firedBy = async (w: { done: Promise<unknown> }, barrier: Promise<unknown>) => {
  let fired = false;
  void w.done.then(() => (fired = true));
  await barrier;
  await new Promise((r) => setImmediate(r));
  return fired;
};

describe('task-events contract', () => {
  it('a task event published by the worker wakes the gateway waiting on that task', async () => {
    const taskId = randomUUID();
    const wait = events.waitForSettle(taskId, 10_000);
    const started = Date.now();
    await createTaskEventPublisher(redis, prefix, silent).publish(taskId, 'failed');
    await wait.done;
    // Woken by the event, not by the 10 s fallback timer.
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(events.taskChannel).toBe(pubsubChannel(prefix, 'taskEvents'));
  });

  it('malformed messages on the channel wake no one', async () => {
    const victim = randomUUID();
    const victimWait = events.waitForSettle(victim, 10_000);
    for (const bad of [
      'not json',
      JSON.stringify({ taskId: victim }), // no status
      JSON.stringify({ taskId: victim, status: 'exploded' }),
      JSON.stringify({ taskId: 42, status: 'completed' }),
      JSON.stringify({ id: victim, status: 'completed' }),
      JSON.stringify([victim, 'completed']),
    ])
      await redis.publish(pubsubChannel(prefix, 'taskEvents'), bad);
    // A valid event for another task, published after the bad ones on the same connection: when it
    // arrives, every bad message before it has been handled (Redis keeps the order).
    const barrier = randomUUID();
    const barrierWait = events.waitForSettle(barrier, 10_000);
    await redis.publish(pubsubChannel(prefix, 'taskEvents'), encodeTaskEvent({ taskId: barrier, status: 'completed' }));
    expect(await firedBy(victimWait, barrierWait.done)).toBe(false);
    victimWait.cancel();
  });

  it('a settlement with its poll entry stores it as the shared entry and hands it to listeners', async () => {
    const taskId = randomUUID();
    const entry = { accountId: 'acc_1', type: 'video' as const, body: { status: 'completed' as const, resultUrls: ['https://cdn.example/r/0.mp4'], type: 'video' as const } };
    await redis.set(pollCacheKey(prefix, taskId), encodePollEntry({ accountId: 'acc_1', type: 'video', body: { status: 'processing', progress: 40, type: 'video' } }), 'PX', 60_000);
    const got: unknown[] = [];
    events.onTaskSettled((id, e) => {
      if (id === taskId) got.push(e);
    });
    const wait = events.waitForSettle(taskId, 10_000);
    await createTaskEventPublisher(redis, prefix, silent).publish(taskId, 'completed', entry);
    // A waiting submit gets the entry too (it answers from it without reading the task back).
    expect(await wait.done).toEqual(entry);
    expect(got).toEqual([entry]);
    // The processing entry is gone; the settled one lives SETTLED_POLL_ENTRY_MS, not the 60 s left.
    expect(decodePollEntry((await redis.get(pollCacheKey(prefix, taskId)))!)).toEqual(entry);
    // The wire form stays the short one older processes read.
    expect(JSON.parse((await redis.get(pollCacheKey(prefix, taskId)))!)).toEqual({ a: 'acc_1', t: 'video', b: entry.body });
    const ttl = await redis.pttl(pollCacheKey(prefix, taskId));
    expect(ttl).toBeGreaterThan(SETTLED_POLL_ENTRY_MS - 5_000);
    expect(ttl).toBeLessThanOrEqual(SETTLED_POLL_ENTRY_MS);
    // Without an entry (an older publisher, or none to give) the shared entry is deleted.
    const other = randomUUID();
    await redis.set(pollCacheKey(prefix, other), 'x', 'PX', 60_000);
    const w2 = events.waitForSettle(other, 10_000);
    await createTaskEventPublisher(redis, prefix, silent).publish(other, 'failed');
    await w2.done;
    expect(await redis.exists(pollCacheKey(prefix, other))).toBe(0);
  });

  it('an entry that disagrees with its event, or does not parse, is not handed on; the event still wakes', async () => {
    const got: unknown[] = [];
    const ids: string[] = [randomUUID(), randomUUID()];
    events.onTaskSettled((id, e) => {
      if (ids.includes(id)) got.push(e ?? null);
    });
    const channel = pubsubChannel(prefix, 'taskEvents');
    const waits = ids.map((id) => events.waitForSettle(id, 10_000).done);
    await redis.publish(channel, JSON.stringify({ taskId: ids[0], status: 'failed', entry: { a: 'acc', t: 'video', b: { status: 'completed', type: 'video' } } }));
    await redis.publish(channel, JSON.stringify({ taskId: ids[1], status: 'completed', entry: { a: 'acc', t: 'audio', b: 'no' } }));
    await Promise.all(waits);
    expect(got).toEqual([null, null]);
  });

  it('key revocations reach listeners only as sha256 hex', async () => {
    const got: string[] = [];
    events.onKeyRevoked((h) => got.push(h));
    const hash = 'a'.repeat(64);
    await redis.publish(pubsubChannel(prefix, 'keyRevoked'), 'not-a-hash');
    await redis.publish(pubsubChannel(prefix, 'keyRevoked'), hash);
    const barrier = randomUUID();
    const w = events.waitForSettle(barrier, 10_000);
    await redis.publish(pubsubChannel(prefix, 'taskEvents'), encodeTaskEvent({ taskId: barrier, status: 'completed' }));
    await w.done;
    expect(got).toEqual([hash]);
  });
});

describe('task-events schema', () => {
  it('round-trips what publishers send and refuses anything else', () => {
    const e = { taskId: 'task-1', status: 'completed' as const };
    expect(decodeTaskEvent(encodeTaskEvent(e))).toEqual(e);
    expect(decodeTaskEvent('{"taskId":"t","status":"failed","extra":1}')).toEqual({ taskId: 't', status: 'failed' });
    const withEntry = { taskId: 't', status: 'failed' as const, entry: { accountId: 'acc', type: 'image' as const, body: { status: 'failed' as const, errorCode: 'timeout', errorMessage: 'm', retryable: true, type: 'image' as const } } };
    expect(decodeTaskEvent(encodeTaskEvent(withEntry))).toEqual(withEntry);
    for (const bad of ['', 'null', '{}', '{"taskId":"","status":"failed"}', '{"taskId":"t","status":"pending"}']) expect(decodeTaskEvent(bad)).toBeNull();
    expect(() => encodeTaskEvent({ taskId: 't', status: 'pending' as never })).toThrow();
    expect(decodeKeyRevoked('b'.repeat(64))).toBe('b'.repeat(64));
    expect(decodeKeyRevoked('B'.repeat(64))).toBeNull();
  });
});
