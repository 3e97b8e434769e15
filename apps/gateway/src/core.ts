// What the gateway is connected to and configured with: the part of its deps (deps.ts) that the
// per-process state (key cache, rate-limit reservations, poll cache, event streams, ...) is built
// from. Its own file, importing none of that state, so the files that build it can name this type
// without importing deps.ts (which imports them): no import circle.
import type { Config } from '@mediagen/config';
import type { Db } from '@mediagen/db';
import type { RedisClient, TaskQueue, WebhookQueue } from '@mediagen/queue';
import type { StorageDriver } from '@mediagen/storage';
import type { GatewayMetrics } from '@mediagen/metrics';
import type { Logger } from 'pino';
import type { ChannelAdapter, ChannelConfig } from '@mediagen/providers';
import type { SoldCatalog } from '@mediagen/catalog';
import type { TaskEvents } from './services/task-events';

export interface GatewayCore {
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
