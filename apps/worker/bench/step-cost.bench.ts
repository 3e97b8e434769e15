// CPU cost of the worker's submit and poll steps, in-process (no BullMQ), against an in-process simulator.
//   node --import tsx apps/worker/bench/step-cost.bench.ts   (add --cpu-prof to see where the time goes)
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { loadConfig } from '@mediagen/config';
import { createDb, newId } from '@mediagen/db';
import { createTestSchema } from '@mediagen/db/testing';
import { createAdapters, parseChannelConfig } from '@mediagen/providers';
import { createConsumerRedis, createTaskEventPublisher, createTaskQueue } from '@mediagen/queue';
import { createStorage } from '@mediagen/storage';
import { createSimServer } from '@mediagen/provider-sim';
import { createChannelSlots } from '../src/channel-slots';
import { newStats, WorkerContext } from '../src/context';
import { advanceTask } from '../src/run-task';

async function main() {
  const N = 1000;
  const schema = await createTestSchema('stepcost');
  const prefix = `sc-${randomBytes(3).toString('hex')}`;
  const config = loadConfig({ DATABASE_URL: schema.url, REDIS_PREFIX: prefix, DATA_DIR: '/tmp/mg-step-cost' });
  const channels = parseChannelConfig({ channels: [{ id: 'c', baseUrl: 'http://127.0.0.1:1/ch/c', apiKey: 'k', costOrder: 1, models: { 'video-a-h3': 'm' }, maxInFlight: 100000 }] });
  const sim = createSimServer({ channels, renderMs: 600000, latencyMs: 0 });
  await new Promise<void>((r) => sim.server.listen(0, '127.0.0.1', r));
  const port = (sim.server.address() as AddressInfo).port;
  channels.channels[0].baseUrl = `http://127.0.0.1:${port}/ch/c`;
  const db = createDb(schema.url, { poolSize: 20 });
  const redis = createConsumerRedis('redis://127.0.0.1:6379');
  const log = pino({ level: 'warn' });
  const ctx: WorkerContext = { config, db, redis, queue: createTaskQueue(redis, prefix), storage: createStorage(config), channels, adapters: createAdapters(channels),
    slots: createChannelSlots(redis, prefix), events: createTaskEventPublisher(redis, prefix, log), log, stats: newStats() };
  const accountId = newId('acc');
  const spec = { type: 'video', model: 'video-a-h3', prompt: 'x', duration: 1, ratio: '16:9', resolution: '480p', tier: null, media: [], firstFrame: null, lastFrame: null, outputSeconds: 1 };
  await db.account.create({ data: { id: accountId, name: 'b', tasksInProgress: N } });
  await db.$executeRaw`INSERT INTO "Task" ("id","accountId","type","model","params","costCents","costMicros","updatedAt","deadlineAt")
      SELECT 'sc-' || g, ${accountId}, 'video', 'video-a-h3', ${JSON.stringify(spec)}::jsonb, 1, 1, now(), now() + interval '6 hours' FROM generate_series(1, ${N}) g`;
  const ids = Array.from({ length: N }, (_, i) => `sc-${i + 1}`);
  const runAll = async (label: string) => {
    const t = Date.now();
    let i = 0;
    await Promise.all(Array.from({ length: 50 }, async () => {
      while (i < N) await advanceTask(ctx, { taskId: ids[i++], step: 'submit', transientErrors: 0 });
    }));
    const ms = Date.now() - t;
    console.log(label, ms, 'ms', Math.round((N * 1000) / ms), 'steps/s');
  };
  await runAll('submit');
  await runAll('poll');
  await runAll('poll');
  sim.server.close(); sim.server.closeAllConnections();
  for (const a of ctx.adapters.values()) a.close();
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
  await db.$disconnect();
  await schema.drop();
}
main();
