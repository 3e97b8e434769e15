// What the poll cache's local copies cost in memory: each holds its body's bytes in a buffer of
// their own, so a copy kept for its whole life (a settled task's, 30 s) does not keep alive a
// shared 64 KiB pool (Buffer.poolSize) that the requests around it cut their short-lived buffers from.
import type { RedisClient, SettledPollEntry } from '@mediagen/queue';
import { PollCache } from '../src/services/poll-cache';

// settle() keeps the event's entry without a Redis command; the scripts are only defined.
const noRedis = { defineCommand: () => undefined } as unknown as RedisClient;
const settled = (n: number): SettledPollEntry => ({
  accountId: 'acc',
  type: 'video',
  body: { status: 'completed', type: 'video', resultUrls: [`https://cdn.example/r/${n}/0.mp4`] } as SettledPollEntry['body'],
});

describe('poll cache local copies in memory', () => {
  it("a kept copy's bytes are a buffer of their own size, not a slice of a shared pool", () => {
    const cache = new PollCache(noRedis, 'p', 5000);
    cache.settle('t1', settled(1));
    const json = cache.localCopy('t1')!.json;
    expect(JSON.parse(json.toString())).toEqual(settled(1).body);
    expect(json.byteOffset).toBe(0);
    expect(json.buffer.byteLength).toBe(json.length);
  });

  it('5,000 settled copies, with requests cutting short-lived buffers between them, hold about their own bytes', () => {
    const cache = new PollCache(noRedis, 'p', 5000);
    for (let i = 0; i < 5000; i++) {
      cache.settle(`t${i}`, settled(i));
      // A request's buffers around it (headers, a Redis command): gone once it is answered.
      for (let j = 0; j < 4; j++) Buffer.from('x'.repeat(1500));
    }
    expect(cache.size).toBe(5000);
    // What the copies keep alive: every distinct memory block their bytes live in, whole.
    const blocks = new Set<ArrayBufferLike>();
    for (let i = 0; i < 5000; i++) blocks.add(cache.localCopy(`t${i}`)!.json.buffer);
    const held = [...blocks].reduce((n, b) => n + b.byteLength, 0);
    // About 90 bytes of body each (0.45 MB); pool slices kept a 64 KiB pool per ten entries (over 30 MB).
    expect(held).toBeLessThan(1024 * 1024);
  });
});
