// Everything the gateway talks to, and the state it keeps per process, created once per process
// from the parsed config and passed to createApp(). Tests build their own (own schema, own Redis
// prefix) through the same function, and two deps made in one process share no state: each part
// below (key cache, rate-limit reservations, poll cache, batched reads, event streams, ...) is
// built here, once per deps, and nowhere else (no module-level or WeakMap singletons).
import type { Config } from '@mediagen/config';
import { createDb, dbTimeoutsFrom } from '@mediagen/db';
import { createRedis, createTaskQueue, createWebhookQueue, RedisClient, redisErrorText } from '@mediagen/queue';
import { createStorage } from '@mediagen/storage';
import { clusterGauges, createGatewayMetrics } from '@mediagen/metrics';
import { mediaPolicyFromConfig, type MediaPolicy } from '@mediagen/media';
import { createMailer, createStripeBilling, type Mailer, type StripeBilling } from '@mediagen/account';
import type { SettleContext } from '@mediagen/settle';
import { TaskEvents } from './services/task-events';
import { defineGatewayScripts } from './services/redis-scripts';
import { clusterSnapshotReader } from './services/cluster-snapshot';
import { createLogger } from '@mediagen/logging';
import { revokeDevelopmentKey } from './services/dev-key';
import { assertServesCatalog, createAdapters, loadChannelConfig } from '@mediagen/providers';
import { parseSoldModels } from '@mediagen/catalog';
import type { GatewayCore } from './core';
import { ApiKeyAuth, createApiKeyAuth } from './middleware/auth';
import { AddressLimiter, ClientAddress } from './middleware/ip-limits';
import { clientAddressWith, trustProxyFn } from './middleware/client-address';
import { AccountRateLimit, createAccountRateLimit } from './middleware/rate-limit';
import { createKeyUsage, KeyUsage } from './services/key-usage';
import { createTaskReads, TaskReads } from './services/task-reads';
import { TaskStreams } from './services/task-streams';
import { PollCache } from './services/poll-cache';
import { createSettleContext } from './services/settle';

export type { GatewayCore } from './core';

/** The gateway's per-process state, built once per deps by createDeps (buildGatewayParts). */
export interface GatewayParts {
  /** The client address of a request under TRUST_PROXY (also what Express's req.ip says). */
  clientAddress: ClientAddress;
  /** Failed authentication per client address, shared by API-key, admin and metrics authentication. */
  authFailures: AddressLimiter;
  /** "Last used" of API keys, written once a minute. */
  keyUsage: KeyUsage;
  /** API-key authentication and its key cache. */
  apiKeys: ApiKeyAuth;
  /** The per-account request rate limit and its reservations. */
  accountRateLimit: AccountRateLimit;
  /** Batched task reads (polls that miss the cache, event streams). */
  taskReads: TaskReads;
  /** This gateway's copy of the shared poll cache. */
  pollCache: PollCache;
  /** The open task event streams (SSE). */
  taskStreams: TaskStreams;
  /** How the gateway settles a task itself (cancel before submit, inline files not stored). */
  settleContext: SettleContext;
  /** Reference media fetching; refuses ALLOW_PRIVATE_MEDIA_URLS in production. */
  mediaPolicy: MediaPolicy;
  /** Reference inspections running per account in this gateway (fetch-precheck.ts caps them). */
  inspections: Map<string, number>;
  /** The account pages' mail. */
  mailer: Mailer;
  /** Stripe top-ups; null when not configured. */
  stripe: StripeBilling | null;
}

export type GatewayDeps = GatewayCore & GatewayParts;

/** The per-process state of a gateway over its connections: called once per deps, by createDeps. */
export function buildGatewayParts(core: GatewayCore): GatewayParts {
  const c = core.config;
  const clientAddress = clientAddressWith(trustProxyFn(c.TRUST_PROXY));
  const authFailures = new AddressLimiter({ ...core, clientAddress }, 'authfail', c.AUTH_FAILURES_PER_MINUTE);
  const keyUsage = createKeyUsage(core);
  const taskReads = createTaskReads(core.db);
  const pollCache = new PollCache(core.redis, c.REDIS_PREFIX, c.POLL_CACHE_MS);
  core.events.onTaskSettled((taskId, entry) => pollCache.settle(taskId, entry));
  return {
    clientAddress,
    authFailures,
    keyUsage,
    apiKeys: createApiKeyAuth({ ...core, clientAddress, authFailures, keyUsage }),
    accountRateLimit: createAccountRateLimit(core),
    taskReads,
    pollCache,
    taskStreams: new TaskStreams(core, taskReads),
    settleContext: createSettleContext(core),
    mediaPolicy: mediaPolicyFromConfig(c, { timeoutMs: c.MEDIA_TIMEOUT_MS, snapshot: true }),
    inspections: new Map(),
    mailer: createMailer({ smtpUrl: c.SMTP_URL, from: c.MAIL_FROM, log: (fields, msg) => core.log.info(fields, msg) }),
    stripe:
      c.STRIPE_SECRET_KEY && c.STRIPE_WEBHOOK_SECRET
        ? createStripeBilling({ secretKey: c.STRIPE_SECRET_KEY, webhookSecret: c.STRIPE_WEBHOOK_SECRET, apiUrl: c.STRIPE_API_URL })
        : null,
  };
}

export async function createDeps(config: Config): Promise<GatewayDeps> {
  // First: a bad channel file stops the gateway before it opens any connection.
  const sold = parseSoldModels(config.SOLD_MODELS);
  const channels = loadChannelConfig(config);
  const adapters = createAdapters(channels);
  assertServesCatalog(channels, adapters, { production: config.NODE_ENV === 'production', sold });
  const db = createDb(config.DATABASE_URL, { poolSize: config.DB_POOL_SIZE ?? 20, timeouts: dbTimeoutsFrom(config), preparedStatements: config.DB_PREPARED_STATEMENTS });
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
  const core: GatewayCore = { config, db, redis, queue, webhookQueue, storage, events, log, metrics, adapters, channels, sold };
  return { ...core, ...buildGatewayParts(core) };
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
  d.keyUsage.stop();
  d.taskStreams.closeAll();
  await Promise.allSettled([d.queue.close(), d.webhookQueue.close(), d.events.stop()]);
  await Promise.allSettled([d.redis.quit()]);
  await d.db.$disconnect();
  for (const a of d.adapters.values()) a.close();
}
