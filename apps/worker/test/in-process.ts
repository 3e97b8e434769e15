// An in-process worker against an in-process simulator, on its own Postgres schema and Redis
// prefix: for worker behaviour that needs a custom channel configuration.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import IORedis from 'ioredis';
import { loadConfig } from '@mediagen/config';
import { createDb, createTaskWithCharge, creditAccount, Db, newId } from '@mediagen/db';
import { createTestSchema } from '@mediagen/db/testing';
import { ChannelAdapter, ChannelConfig, parseChannelConfig } from '@mediagen/providers';
import { createProducerRedis, createTaskQueue, enqueueTask, TaskQueue } from '@mediagen/queue';
import { createSimServer, type RenderStore } from '@mediagen/provider-sim';
import { startWorkerApp, WorkerApp } from '../src/worker-app';

export interface InProcess {
  db: Db;
  app: WorkerApp;
  sim: RenderStore;
  /** The simulator's optimize_prompt model: calls answered per protocol. */
  optimizerCalls: { openai: number; gemini: number };
  queue: TaskQueue;
  accountId: string;
  /** The worker's DATA_DIR (file storage root). */
  dataDir: string;
  /** A video task (480p, 2 s unless `spec` says otherwise: resolution, duration, effort, ...). */
  submit(prompt: string, model?: string, spec?: Record<string, unknown>): Promise<string>;
  settled(taskId: string, timeoutMs?: number): Promise<{ status: string; errorCode: string | null }>;
  /** The task's attempts once none is open: a task settles just before its last attempt closes. */
  closedAttempts(taskId: string, timeoutMs?: number): Promise<Awaited<ReturnType<Db['taskAttempt']['findMany']>>>;
  stop(): Promise<void>;
}

/** `channels` gets the simulator's base URL; `env` overrides worker settings. */
export async function startInProcess(
  channels: (simBase: string) => unknown,
  env: Record<string, string> = {},
  /** `databaseUrl`: rewrites the URL the worker uses (e.g. through a proxy a test can cut); the test's own client connects directly. */
  opts: { adapters?: (channels: ChannelConfig) => Map<string, ChannelAdapter>; databaseUrl?: (schemaUrl: string) => string; simRetiredModels?: string[] } = {},
): Promise<InProcess> {
  const schema = await createTestSchema('worker');
  const prefix = `wt-${randomBytes(3).toString('hex')}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-worker-'));
  const simChannels = parseChannelConfig(channels('http://127.0.0.1:1'));
  const sim = createSimServer({ channels: simChannels, renderMs: 200, latencyMs: 0, retiredModels: opts.simRetiredModels });
  await new Promise<void>((r) => sim.server.listen(0, '127.0.0.1', r));
  const simBase = `http://127.0.0.1:${(sim.server.address() as AddressInfo).port}`;
  const config = loadConfig({
    NODE_ENV: 'test', DATABASE_URL: opts.databaseUrl ? opts.databaseUrl(schema.url) : schema.url, REDIS_PREFIX: prefix, DATA_DIR: path.join(dataDir, 'data'), WORKER_PORT: '0',
    PUBLIC_BASE_URL: 'http://files.test', SIM_BASE_URL: simBase, SWEEP_INTERVAL_MS: '500', RECONCILE_INTERVAL_MS: '1000', RECONCILE_GRACE_MS: '1000', ...env,
  });
  const channelConfig: ChannelConfig = parseChannelConfig(channels(simBase));
  const app = await startWorkerApp(config, { channels: channelConfig, log: pino({ level: 'warn' }), adapters: opts.adapters });
  const db = createDb(schema.url, { poolSize: 4 });
  const redis = createProducerRedis(config.REDIS_URL);
  const queue = createTaskQueue(redis, prefix);
  const accountId = newId('acc');
  await db.account.create({ data: { id: accountId, name: 'worker-test', maxConcurrentTasks: 1000 } });
  await creditAccount(db, accountId, 100_000, 'test');

  return {
    db, app, sim: sim.store, optimizerCalls: sim.optimizer.calls, queue, accountId, dataDir: path.join(dataDir, 'data'),
    async submit(prompt, model = 'video-a-h3', overrides = {}) {
      const taskId = newId();
      const spec = { type: 'video', model, prompt, duration: 2, ratio: '16:9', resolution: '480p', tier: null, variant: null, refMode: null,
        effort: null, seed: null, optimizePrompt: null, media: [], firstFrame: null, lastFrame: null, outputSeconds: 2, ...overrides };
      await createTaskWithCharge(db, { taskId, accountId, type: 'video', model, params: spec, costCents: 7, costMicros: 70_000n, billedSeconds: 2,
        deadlineAt: new Date(Date.now() + config.TASK_TIMEOUT_MS) });
      await enqueueTask(queue, taskId);
      return taskId;
    },
    async settled(taskId, timeoutMs = 15_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const t = await db.task.findUniqueOrThrow({ where: { id: taskId } });
        if (t.status === 'completed' || t.status === 'failed') return t;
        if (Date.now() > until) throw new Error(`task ${taskId} still ${t.status}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async closedAttempts(taskId, timeoutMs = 5000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const rows = await db.taskAttempt.findMany({ where: { taskId }, orderBy: { attemptNo: 'asc' } });
        if (!rows.some((r) => ['submitting', 'running', 'succeeded'].includes(r.status)) || Date.now() > until) return rows;
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    async stop() {
      await app.stop();
      await queue.close();
      redis.disconnect();
      sim.server.closeAllConnections();
      await new Promise((r) => sim.server.close(r));
      const cleaner = new IORedis(config.REDIS_URL);
      const keys = await cleaner.keys(`${prefix}:*`);
      if (keys.length) await cleaner.del(...keys);
      cleaner.disconnect();
      await db.$disconnect();
      await schema.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
