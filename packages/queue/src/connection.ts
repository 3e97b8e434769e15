// Redis connections: the one factory every process uses (createRedis), for a single server
// (REDIS_URL) or a Redis Cluster (REDIS_CLUSTER_NODES). Producers fail fast when Redis is down (the
// gateway answers 503 instead of hanging); consumers must retry forever, as BullMQ requires
// (maxRetriesPerRequest: null).
//
// On a cluster every multi-key command, MULTI, pipeline and Lua script must touch keys of one hash
// slot. Keys spread over the masters by their own names; where keys must meet they share a hash tag:
// BullMQ's keys sit under queuePrefix() = `{prefix}` on a cluster (on a single server their names do
// not change, so a running deployment keeps its jobs), and a channel's breaker keys carry the
// channel's tag (packages/channel-health keys.ts). Everything else is one key per command.
import IORedis, { Cluster, ClusterOptions, Redis, RedisOptions } from 'ioredis';

/** A connection to a single Redis server or to a Redis Cluster (both speak the same commands). */
export type RedisClient = Redis | Cluster;

/** One seed node of a cluster (packages/config ClusterNode). */
export interface RedisSeedNode {
  host: string;
  port: number;
  username?: string;
  password?: string;
  tls?: boolean;
}

/** Where Redis is: the two settings of the parsed config (a Config fits). */
export interface RedisTarget {
  REDIS_URL: string;
  /** When set (and not empty), REDIS_URL is not used. */
  REDIS_CLUSTER_NODES?: readonly RedisSeedNode[] | undefined;
}

/** producer: fail fast (request paths); consumer: queue and retry forever (BullMQ, subscribers, workers). */
export type RedisRole = 'producer' | 'consumer';

export interface RedisExtra {
  enableAutoPipelining?: boolean;
  lazyConnect?: boolean;
  /** Single server only: options the tests and tools set (retryStrategy, ...). */
  redis?: RedisOptions;
}

const ROLE_OPTIONS: Record<RedisRole, { offlineQueue: boolean; maxRetriesPerRequest: number | null; connectTimeout?: number }> = {
  producer: { offlineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2_000 },
  consumer: { offlineQueue: true, maxRetriesPerRequest: null },
};

/** The one Redis factory: an IORedis for REDIS_URL, or an ioredis Cluster for REDIS_CLUSTER_NODES. */
export function createRedis(target: RedisTarget, role: RedisRole, extra: RedisExtra = {}): RedisClient {
  const r = ROLE_OPTIONS[role];
  const nodes = target.REDIS_CLUSTER_NODES;
  if (nodes && nodes.length > 0) {
    const first = nodes[0];
    const options: ClusterOptions = {
      enableOfflineQueue: r.offlineQueue,
      enableAutoPipelining: extra.enableAutoPipelining ?? false,
      lazyConnect: extra.lazyConnect ?? false,
      // A refused or moved slot map is retried, never given up on (the gateway reports the outage).
      clusterRetryStrategy: (times) => Math.min(100 * times, 2_000),
      // With TLS the certificate names the host, not the IP the slot map reports: connect by the
      // node's name (what ioredis documents for AWS ElastiCache and other TLS clusters).
      ...(first.tls ? { dnsLookup: (address: string, done: (err: Error | null, address: string) => void) => done(null, address) } : {}),
      redisOptions: {
        maxRetriesPerRequest: r.maxRetriesPerRequest,
        ...(r.connectTimeout ? { connectTimeout: r.connectTimeout } : {}),
        ...(first.username ? { username: first.username } : {}),
        ...(first.password ? { password: first.password } : {}),
        ...(first.tls ? { tls: {} } : {}),
      },
    };
    return new Cluster(nodes.map((n) => ({ host: n.host, port: n.port })), options);
  }
  return new IORedis(target.REDIS_URL, {
    enableOfflineQueue: r.offlineQueue,
    maxRetriesPerRequest: r.maxRetriesPerRequest,
    ...(r.connectTimeout ? { connectTimeout: r.connectTimeout } : {}),
    ...(extra.enableAutoPipelining ? { enableAutoPipelining: true } : {}),
    ...(extra.lazyConnect ? { lazyConnect: true } : {}),
    ...extra.redis,
  });
}

/** A single-server producer connection (tests and tools that hold only a URL). */
export function createProducerRedis(url: string, extra: RedisOptions = {}): Redis {
  return createRedis({ REDIS_URL: url }, 'producer', { redis: extra }) as Redis;
}

/** A single-server consumer connection (tests and tools that hold only a URL). */
export function createConsumerRedis(url: string, extra: RedisOptions = {}): Redis {
  return createRedis({ REDIS_URL: url }, 'consumer', { redis: extra }) as Redis;
}

/**
 * The text of a connection error for a log line. A cluster's "Failed to refresh slots cache" hides
 * the cause in `lastNodeError` (a refused connection, a password, a server without cluster support).
 */
export function redisErrorText(err: Error): string {
  const cause = (err as Error & { lastNodeError?: Error }).lastNodeError;
  return cause ? `${err.message} (${cause.message})` : err.message;
}

export const isCluster = (redis: RedisClient): redis is Cluster => redis.isCluster === true;

/**
 * BullMQ's key prefix for this connection. On a cluster every key of a queue must share one slot
 * (its Lua scripts touch many), so the prefix becomes a hash tag: `{mg}:tasks:...`. On a single
 * server the names stay `mg:tasks:...`, so queues of a running deployment survive the upgrade.
 */
export const queuePrefix = (redis: RedisClient, prefix: string): string => (isCluster(redis) ? `{${prefix}}` : prefix);

/** The hash of one BullMQ job, as BullMQ names it (the reconcilers read `timestamp` and `finishedOn` from it). */
export const jobKey = (redis: RedisClient, prefix: string, queue: string, jobId: string): string => `${queuePrefix(redis, prefix)}:${queue}:${jobId}`;

/** Redis keys of one deployment (or one test file) share a prefix. */
export const redisKey = (prefix: string, ...parts: string[]): string => [prefix, ...parts].join(':');

/**
 * The masters to run a whole-keyspace command on (SCAN, KEYS): every master of a cluster that
 * answers a PING within `timeoutMs`. A master that just died may still be listed until the slot map
 * is refreshed, and a command queued on it would wait for it forever; a live master the client has
 * not talked to yet is not 'ready' either (ioredis connects to a node on its first command), so
 * readiness is asked, not read off the connection's status.
 */
export async function masters(redis: RedisClient, timeoutMs = 1_000): Promise<Redis[]> {
  if (!isCluster(redis)) return [redis];
  const answers = async (node: Redis): Promise<boolean> => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    try {
      return await Promise.race([node.ping().then((r) => r === 'PONG', () => false), late]);
    } finally {
      clearTimeout(timer);
    }
  };
  const nodes = redis.nodes('master');
  const alive = await Promise.all(nodes.map(answers));
  return nodes.filter((_n, i) => alive[i]);
}

/**
 * Deletes every key under `prefix:` and, on a cluster, under BullMQ's `{prefix}:` (tests and
 * benchmarks clean up after themselves with it). SCAN walks one server, so it runs on every master.
 */
export async function deleteKeysWithPrefix(redis: RedisClient, prefix: string): Promise<number> {
  let deleted = 0;
  const patterns = isCluster(redis) ? [`${prefix}:*`, `${queuePrefix(redis, prefix)}:*`] : [`${prefix}:*`];
  for (const node of await masters(redis)) {
    for (const pattern of patterns) {
      let cursor = '0';
      do {
        const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
        cursor = next;
        if (keys.length === 0) continue;
        // On a cluster the keys of one node's scan span many slots, and DEL of several keys needs one.
        if (isCluster(redis)) for (const key of keys) deleted += await node.del(key);
        else deleted += await node.del(...keys);
      } while (cursor !== '0');
    }
  }
  return deleted;
}
