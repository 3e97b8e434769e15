// Builds a worker process's parts from the config and shuts them down in order. main.ts adds the
// signals; tests start the same thing in-process.
import { parseSoldModels } from '@mediagen/catalog';
import http from 'node:http';
import type { Logger } from 'pino';
import type { Worker } from 'bullmq';
import { createChannelHealth, REGISTRY_REFRESH_MS } from '@mediagen/channel-health';
import type { Config } from '@mediagen/config';
import { createDb, dbTimeoutsFrom } from '@mediagen/db';
import { createLogger } from '@mediagen/logging';
import { createWorkerMetrics } from '@mediagen/metrics';
import { assertServesCatalog, ChannelAdapter, ChannelConfig, channelCoverage, closeIdleDownloads, createAdapters, describeCoverage, downloadPolicyFromConfig, loadChannelConfig, upstreamModelFor } from '@mediagen/providers';
import { createRedis, createTaskEventPublisher, createTaskQueue, createWebhookQueue, redisErrorText } from '@mediagen/queue';
import { createStorage } from '@mediagen/storage';
import { createPromptOptimizer, describeOptimizer, loadOptimizerConfig } from '@mediagen/prompt-optimizer';
import { optimizerBytes } from './prompt-rewrite';
import { createChannelSlots } from './channel-slots';
import { observeChannel } from './channel-observer';
import { newStats, WorkerContext } from './context';
import { startHealthServer } from './health-server';
import { Maintenance, startMaintenance } from './maintenance';
import { createTaskWorker } from './task-worker';
import { createWebhookWorker } from './webhook-worker';
import { upstreamCancel } from './upstream-cancel';
import { checkChannelsAtStart } from './start-check';

export interface WorkerApp {
  ctx: WorkerContext;
  taskWorker: Worker;
  maintenance: Maintenance;
  health: http.Server;
  /** Stops taking jobs, lets running steps finish (up to SHUTDOWN_TIMEOUT_MS), then disconnects. */
  stop(): Promise<void>;
}

export async function startWorkerApp(
  config: Config,
  opts: {
    channels?: ChannelConfig;
    log?: Logger;
    processMetrics?: boolean;
    /** Test seam: adapters made otherwise than from the config (scripted upstreams). */
    adapters?: (channels: ChannelConfig) => Map<string, ChannelAdapter>;
  } = {},
): Promise<WorkerApp> {
  const log = opts.log ?? createLogger(config.LOG_LEVEL, { app: 'worker', pid: process.pid });
  const channels = opts.channels ?? loadChannelConfig(config);
  // Tasks of a model no channel serves fail with generation_failed; say so once, at start.
  // Before any connection: a channel that cannot serve a model it maps (or, in production, a model
  // no channel serves) stops the worker with the model and the channel named.
  const rawAdapters = (opts.adapters ?? createAdapters)(channels);
  // A bad PROMPT_OPTIMIZER file stops the worker at start, like a bad channel file.
  const optimizerConfig = loadOptimizerConfig(config);
  // Only what is sold (SOLD_MODELS) must be served: a deployment offering two models starts.
  const unserved = assertServesCatalog(channels, rawAdapters, { production: config.NODE_ENV === 'production', sold: parseSoldModels(config.SOLD_MODELS) });
  if (unserved.length) log.warn({ models: unserved }, 'no channel serves these models; their tasks will fail');
  const db = createDb(config.DATABASE_URL, {
    poolSize: config.DB_POOL_SIZE ?? Math.min(20, config.WORKER_CONCURRENCY + 5),
    timeouts: dbTimeoutsFrom(config),
    preparedStatements: config.DB_PREPARED_STATEMENTS,
  });
  // BullMQ wants its own connections for blocking commands; plain commands share one. That one
  // sends the commands of one turn of the event loop in one write (as the gateway's does): a
  // settlement's SET and PUBLISH, a step's slot and breaker scripts. On this kind of VM a socket
  // write that wakes Redis costs the sender 0.1-0.25 ms of CPU (docs/benchmark.md).
  const redis = createRedis(config, 'consumer', { enableAutoPipelining: true });
  const workerRedis = createRedis(config, 'consumer');
  const maintenanceRedis = createRedis(config, 'consumer');
  const webhookRedis = createRedis(config, 'consumer');
  for (const r of [redis, workerRedis, maintenanceRedis, webhookRedis]) r.on('error', (err: Error) => log.warn({ err: redisErrorText(err) }, 'redis error'));
  const metrics = createWorkerMetrics({ processMetrics: opts.processMetrics });
  const channelHealth = createChannelHealth(redis, config.REDIS_PREFIX, {
    failures: config.CHANNEL_BREAKER_FAILURES,
    windowMs: config.CHANNEL_BREAKER_WINDOW_MS,
    cooldownMs: config.CHANNEL_BREAKER_COOLDOWN_MS,
  });
  // Made before the connection's first command (the channel list below): both define their Lua
  // scripts on it (channel-slots.ts).
  const slots = createChannelSlots(redis, config.REDIS_PREFIX);
  const observed = new Map([...rawAdapters].map(([id, a]) => [id, observeChannel(a, { metrics, health: channelHealth, log })]));
  const adapters = new Map([...observed].map(([id, o]) => [id, o.adapter]));
  const downloadTimers = new Map([...observed].map(([id, o]) => [id, o.download]));
  // The gateway has no channel file: it learns the channels (for /admin/channels) from the workers,
  // which report them at start and every REGISTRY_REFRESH_MS (a channel nobody reports expires).
  const channelInfos = channels.channels.map((c) => ({
    id: c.id, models: Object.keys(c.models), tier: c.tier, costOrder: c.costOrder, enabled: c.enabled, maxInFlight: c.maxInFlight,
    cancel: upstreamCancel(adapters.get(c.id)) !== null,
    // What the channel renders of each model it maps, for the console and GET /admin/channels.
    coverage: Object.fromEntries(
      Object.keys(c.models).map((key) => {
        const variant = key.startsWith('video-c-3.1-') ? key : null;
        const limits = channelCoverage(adapters.get(c.id), variant ? 'video-c-3.1' : key, variant);
        return [key, { renders: describeCoverage(limits), limits: { ...limits } }];
      }),
    ),
    upstreamModels: Object.fromEntries(Object.keys(c.models).map((key) => [key, upstreamModelFor(c, key) ?? ''])),
  }));
  const publishChannels = () => channelHealth.register(channelInfos).catch((err: Error) => log.warn({ err: err.message }, 'channel list not published'));
  await publishChannels();
  const channelRefresh = setInterval(() => void publishChannels(), REGISTRY_REFRESH_MS);
  channelRefresh.unref();
  const ctx: WorkerContext = {
    config,
    db,
    redis,
    queue: createTaskQueue(redis, config.REDIS_PREFIX),
    webhookQueue: createWebhookQueue(redis, config.REDIS_PREFIX),
    storage: createStorage(config),
    channels,
    adapters,
    downloadTimers,
    slots,
    events: createTaskEventPublisher(redis, config.REDIS_PREFIX, log),
    log,
    stats: newStats(),
    metrics,
    health: channelHealth,
    download: downloadPolicyFromConfig(config),
  };
  ctx.optimizer = createPromptOptimizer(optimizerConfig, { loadBytes: optimizerBytes(ctx) });
  log.info(describeOptimizer(optimizerConfig));
  const taskWorker = createTaskWorker(ctx, workerRedis);
  const webhookWorker = createWebhookWorker(ctx, webhookRedis);
  const maintenance = await startMaintenance(ctx, maintenanceRedis);
  let running = true;
  const health = startHealthServer(ctx, config.WORKER_PORT, () => running, { token: config.ADMIN_TOKEN, metricsToken: config.METRICS_TOKEN, required: config.NODE_ENV === 'production' });
  log.info({ channels: channels.channels.map((c) => c.id), concurrency: config.WORKER_CONCURRENCY }, 'worker started');
  if (config.CHANNEL_CHECK_AT_START) void checkChannelsAtStart(ctx).catch((err: Error) => log.warn({ err: err.message }, 'channel check at start failed'));

  const stop = async () => {
    running = false;
    clearInterval(channelRefresh);
    maintenance.keeper.stop();
    const drain = Promise.all([taskWorker.close(), maintenance.worker.close(), webhookWorker.close()]);
    const deadline = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), config.SHUTDOWN_TIMEOUT_MS).unref());
    if ((await Promise.race([drain, deadline])) === 'timeout') {
      // Steps still running are abandoned; their locks lapse and another worker re-runs them.
      log.warn('shutdown deadline reached; closing with steps still running');
      await Promise.allSettled([taskWorker.close(true), maintenance.worker.close(true), webhookWorker.close(true)]);
    }
    await Promise.allSettled([ctx.queue.close(), maintenance.queue.close(), ctx.webhookQueue.close()]);
    for (const a of ctx.adapters.values()) a.close();
    closeIdleDownloads();
    await Promise.allSettled([redis.quit(), workerRedis.quit(), maintenanceRedis.quit(), webhookRedis.quit()]);
    await db.$disconnect();
    await new Promise<void>((r) => health.close(() => r()));
    log.info(ctx.stats, 'worker stopped');
  };
  return { ctx, taskWorker, maintenance, health, stop };
}
