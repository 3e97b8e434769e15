// Everything the gateway talks to, created once per process from the parsed config and passed
// to createApp(). Tests build their own (own schema, own Redis prefix) through the same function.
import type { Config } from '@mediagen/config';
import { createDb, Db, dbTimeoutsFrom } from '@mediagen/db';
import { createRedis, createTaskQueue, createWebhookQueue, RedisClient, redisErrorText, TaskQueue, WebhookQueue } from '@mediagen/queue';
import { createStorage, StorageDriver } from '@mediagen/storage';
import { clusterGauges, createGatewayMetrics, GatewayMetrics } from '@mediagen/metrics';
import { TaskEvents } from './services/task-events';
import { defineGatewayScripts } from './services/redis-scripts';
import { clusterSnapshotReader } from './services/cluster-snapshot';
import { createLogger } from '@mediagen/logging';
import { revokeDevelopmentKey } from './services/dev-key';
import type { Logger } from 'pino';
import { assertServesCatalog, ChannelAdapter, ChannelConfig, createAdapters, loadChannelConfig } from '@mediagen/providers';
import { parseSoldModels, type SoldCatalog } from '@mediagen/catalog';

export interface GatewayDeps {
  config: Config;
  db: Db;
  /** Commands (cache, rate limits): fails fast when Redis is down. A single server or a cluster. */
  redis: RedisClient;
  queue: TaskQueue;
  /** Outbound webhook deliveries: a cancel settles a task here, and admins re-send deliveries. */
  webhookQueue: WebhookQueue;
  storage: StorageDriver;
  events: TaskEvents;
  log: Logger;
  /** This gateway's Prometheus registry and counters (GET /metrics). */
  metrics: GatewayMetrics;
  /**
   * One adapter per channel, from the same channel config the workers load (PROVIDER_CONFIG or
   * the development default): the gateway uses them only to verify upstream callbacks.
   */
  adapters: Map<string, ChannelAdapter>;
  /** What this deployment sells (SOLD_MODELS): submits, the OpenAPI document and the front page follow it. */
  sold: SoldCatalog;
  /** The same channel config: the console's channel check probes its channels with their keys. */
  channels: ChannelConfig;
}

export async function createDeps(config: Config): Promise<GatewayDeps> {
  // First: a bad channel file stops the gateway before it opens any connection.
  const sold = parseSoldModels(config.SOLD_MODELS);
  const channels = loadChannelConfig(config);
  const adapters = createAdapters(channels);
  assertServesCatalog(channels, adapters, { production: config.NODE_ENV === 'production', sold });
  const db = createDb(config.DATABASE_URL, { poolSize: config.DB_POOL_SIZE ?? 20, timeouts: dbTimeoutsFrom(config) });
  // Auto-pipelining sends the commands of concurrent requests (rate-limit counter, poll cache,
  // enqueue) in one write instead of one write each.
  const redis = createRedis(config, 'producer', { enableAutoPipelining: true });
  defineGatewayScripts(redis); // before any command: see redis-scripts.ts
  let lastRedisError: string | null = null;
  redis.on('error', (err: Error) => (lastRedisError = redisErrorText(err))); // reconnects by itself; /readyz and submits report the outage
  await waitReady(redis, 5_000);
  const queue = createTaskQueue(redis, config.REDIS_PREFIX);
  queue.on('error', () => undefined); // the connection's errors, already handled above (BullMQ prints them otherwise)
  const webhookQueue = createWebhookQueue(redis, config.REDIS_PREFIX);
  webhookQueue.on('error', () => undefined);
  const storage = createStorage(config);
  const events = new TaskEvents(config, config.REDIS_PREFIX);
  await events.start();
  const log = createLogger(config.LOG_LEVEL, { app: 'gateway' });
  if (config.NODE_ENV === 'production') {
    const n = await revokeDevelopmentKey(db).catch(() => 0);
    if (n > 0) log.warn('revoked the public development API key found in this production database');
  }
  // Say once why Redis is not there yet (a wrong address, a password, REDIS_CLUSTER_NODES naming a
  // server without cluster support): the gateway keeps retrying, and its answers say only 503.
  if (redis.status !== 'ready')
    log.warn({ redis: config.REDIS_CLUSTER_NODES ? 'cluster' : 'single', status: redis.status, err: lastRedisError }, 'Redis is not ready yet; submits answer 503 until it is');
  if (config.ADMIN_DISABLED) log.warn('ADMIN_TOKEN is not set: the admin API refuses every request (set NODE_ENV=development for the development token)');
  const metrics = createGatewayMetrics();
  clusterGauges(metrics.registry, clusterSnapshotReader(redis, config.REDIS_PREFIX, queue), (err) =>
    log.warn({ err: err.message }, 'metrics: cluster gauges unavailable'),
  );
  return { config, db, redis, queue, webhookQueue, storage, events, log, metrics, adapters, channels, sold };
}

/** Start-up waits briefly for Redis, but a gateway may also start while Redis is down. */
function waitReady(redis: RedisClient, ms: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    redis.once('ready', () => {
      clearTimeout(t);
      resolve();
    });
  });
}

/** Closes in dependency order: queue and subscriber first, then the connections under them. */
export async function closeDeps(d: GatewayDeps): Promise<void> {
  await Promise.allSettled([d.queue.close(), d.webhookQueue.close(), d.events.stop()]);
  await Promise.allSettled([d.redis.quit()]);
  await d.db.$disconnect();
  for (const a of d.adapters.values()) a.close();
}

/**
 * A getter for state made once per deps (and so once per process in production), for parts whose
 * state is per gateway instance: the key cache, the rate-limit reservations, batched reads.
 */
export function onePerDeps<T>(create: (deps: GatewayDeps) => T): (deps: GatewayDeps) => T {
  const instances = new WeakMap<GatewayDeps, T>();
  return (deps) => {
    let v = instances.get(deps);
    if (v === undefined) instances.set(deps, (v = create(deps)));
    return v;
  };
}
