// Redis connections. Producers fail fast when Redis is down (the gateway answers 503 instead of
// hanging); consumers must retry forever, as BullMQ requires (maxRetriesPerRequest: null).
import IORedis, { Redis, RedisOptions } from 'ioredis';

export function createProducerRedis(url: string, extra: RedisOptions = {}): Redis {
  return new IORedis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    ...extra,
  });
}

export function createConsumerRedis(url: string, extra: RedisOptions = {}): Redis {
  return new IORedis(url, { maxRetriesPerRequest: null, ...extra });
}

/** Redis keys of one deployment (or one test file) share a prefix. */
export const redisKey = (prefix: string, ...parts: string[]): string => [prefix, ...parts].join(':');

/** Deletes every key under `prefix:` (tests and benchmarks clean up after themselves with it). */
export async function deleteKeysWithPrefix(redis: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) deleted += await redis.del(...keys);
  } while (cursor !== '0');
  return deleted;
}
