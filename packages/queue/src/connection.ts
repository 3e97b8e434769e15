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
