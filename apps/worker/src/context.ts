// Everything the worker's steps use, created once per process in main.ts (or per test).
import type { Logger } from 'pino';
import type { ChannelHealth } from '@mediagen/channel-health';
import type { Config } from '@mediagen/config';
import type { Db } from '@mediagen/db';
import type { WorkerMetrics } from '@mediagen/metrics';
import type { ChannelAdapter, ChannelConfig, DownloadPolicy } from '@mediagen/providers';
import type { PromptOptimizer } from '@mediagen/prompt-optimizer';
import type { RedisClient, TaskEventPublisher, TaskQueue, WebhookQueue } from '@mediagen/queue';
import type { StorageDriver } from '@mediagen/storage';
import type { ChannelSlots } from './channel-slots';

export interface WorkerStats {
  steps: number;
  submits: number;
  polls: number;
  completed: number;
  failed: number;
  delayed: number;
  /** Result downloads started from an upstream callback's claim (early-status.ts), and those a step kept. */
  claimedDownloads: number;
  claimedKept: number;
}

/** Times and counts one result download of a channel (channel-observer.ts). */
export type DownloadTimer = <T>(fn: () => Promise<T>) => Promise<T>;

export interface WorkerContext {
  config: Config;
  db: Db;
  /** Plain commands (slots, events, reconciler lookups); BullMQ keeps its own connections. */
  redis: RedisClient;
  queue: TaskQueue;
  /** Outbound webhook deliveries (packages/webhooks), fed after each settle. */
  webhookQueue: WebhookQueue;
  storage: StorageDriver;
  channels: ChannelConfig;
  adapters: Map<string, ChannelAdapter>;
  /** The result-download timer of each channel of `adapters`, by channel id (built with them, once per worker). */
  downloadTimers: Map<string, DownloadTimer>;
  slots: ChannelSlots;
  events: TaskEventPublisher;
  log: Logger;
  stats: WorkerStats;
  /** This worker's Prometheus registry and counters (GET /metrics on WORKER_PORT). */
  metrics: WorkerMetrics;
  /** Channel circuit breakers, shared with every worker through Redis. */
  health: ChannelHealth;
  /** Result downloads (packages/providers download.ts): URL policy switch and byte caps. */
  download: DownloadPolicy;
  /** optimize_prompt's language model (prompt-rewrite.ts); absent: prompts go as written. */
  optimizer?: PromptOptimizer;
}

export const newStats = (): WorkerStats => ({ steps: 0, submits: 0, polls: 0, completed: 0, failed: 0, delayed: 0, claimedDownloads: 0, claimedKept: 0 });
