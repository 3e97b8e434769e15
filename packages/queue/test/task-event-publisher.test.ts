// The task event publisher on the real Redis: a settlement's event goes out without waiting for the
// reply to the shared entry's replacement (time to result waits for the event, not for that
// reply), and a gateway that hears the event and reads the shared entry at once finds the settled
// one (the two are sent in order on one connection).
import { randomUUID } from 'node:crypto';
import IORedis from 'ioredis';
import { createTaskEventPublisher, decodePollEntry, decodeTaskEvent, deleteKeysWithPrefix, encodePollEntry, pollCacheKey, pubsubChannel, TaskEvent } from '../src';
import type { RedisClient } from '../src';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-publisher-${randomUUID().slice(0, 8)}`;
const silent = { warn: () => undefined };

let redis: IORedis;
let sub: IORedis;
const heard: TaskEvent[] = [];
beforeAll(async () => {
  redis = new IORedis(REDIS_URL);
  sub = new IORedis(REDIS_URL);
  sub.on('message', (_channel: string, message: string) => {
    const e = decodeTaskEvent(message);
    if (e) heard.push(e);
  });
  await sub.subscribe(pubsubChannel(prefix, 'taskEvents'));
});
afterAll(async () => {
  await deleteKeysWithPrefix(redis, prefix);
  sub.disconnect();
  redis.disconnect();
});

async function until(what: string, cond: () => boolean, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

it('sends the settled entry and the event together, the entry first', async () => {
  const taskId = randomUUID();
  const entry = { accountId: 'acc_1', type: 'image' as const, body: { status: 'completed' as const, resultUrls: ['https://cdn.example/r/0.png'], type: 'image' as const } };
  await redis.set(pollCacheKey(prefix, taskId), encodePollEntry({ accountId: 'acc_1', type: 'image', body: { status: 'processing', progress: 40, type: 'image' } }), 'PX', 60_000);

  // The connection sends every command at once; only the reply to SET is held back until `release`.
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const held = new Proxy(redis, {
    get(target, prop, receiver) {
      if (prop === 'set') return (...args: unknown[]) => { const sent = (target.set as (...a: unknown[]) => Promise<unknown>)(...args); return gate.then(() => sent); };
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  }) as unknown as RedisClient;

  const publishing = createTaskEventPublisher(held, prefix, silent).publish(taskId, 'completed', entry);
  try {
    // The event arrives while the SET's reply is still held: it did not wait for it.
    await until('the task event', () => heard.some((e) => e.taskId === taskId));
    // Read at the moment the event was heard, the shared entry is already the settled one.
    expect(decodePollEntry((await redis.get(pollCacheKey(prefix, taskId)))!)).toEqual(entry);
    expect(heard.find((e) => e.taskId === taskId)?.entry).toEqual(entry);
  } finally {
    release();
    await publishing;
  }
});
