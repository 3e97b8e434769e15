// The worker's plain Redis connection sends the commands of one turn of the event loop in one socket
// write (ioredis auto-pipelining, worker-app.ts): a settlement's poll-cache SET and its task event's
// PUBLISH leave together. Seen on the wire of a real settlement: every write of the connection is
// recorded with its bytes.
import type { Redis } from 'ioredis';
import { ledgerDiscrepancies } from '@mediagen/db';
import { pollCacheKey, pubsubChannel } from '@mediagen/queue';
import { InProcess, startInProcess } from './in-process';

jest.setTimeout(30_000);

describe("the worker's command connection", () => {
  let w: InProcess;
  beforeAll(async () => {
    w = await startInProcess((base) => ({
      channels: [{ id: 'one', baseUrl: `${base}/ch/one`, apiKey: 'k', costOrder: 1, models: { 'video-a-h3': 'm' }, poll: { firstMs: 50, minMs: 50, maxMs: 200 } }],
    }));
  });
  afterAll(async () => {
    expect(await ledgerDiscrepancies(w.db)).toEqual([]);
    await w.stop();
  });

  it("sends a settlement's poll-cache SET and its PUBLISH in one write", async () => {
    const redis = w.app.ctx.redis as Redis;
    const stream = (redis as unknown as { stream: { write: (...a: unknown[]) => boolean } }).stream;
    const writes: string[] = [];
    const write = stream.write;
    stream.write = function (this: unknown, ...a: unknown[]) {
      writes.push(Buffer.isBuffer(a[0]) ? a[0].toString('latin1') : String(a[0]));
      return write.apply(this, a);
    };
    try {
      const taskId = await w.submit('one write #sim:delay=200');
      expect((await w.settled(taskId)).status).toBe('completed');
      const prefix = w.app.ctx.config.REDIS_PREFIX;
      const channel = pubsubChannel(prefix, 'taskEvents');
      const published = writes.filter((x) => x.includes(channel) && x.includes(taskId));
      expect(published).toHaveLength(1);
      // The same write carries the settled poll entry under the task's key, before the event.
      const key = pollCacheKey(prefix, taskId);
      expect(published[0]).toContain(key);
      expect(published[0].indexOf(key)).toBeLessThan(published[0].indexOf(channel));
      expect(await redis.pttl(key)).toBeGreaterThan(0);
    } finally {
      stream.write = write;
    }
  });
});
