// An in-process gateway on loopback for scripts/fuzz.ts and scripts/hostile-load.ts: its own
// Postgres schema and Redis key prefix (like the tests), torn down at the end. Nothing leaves the
// machine: the gateway listens on 127.0.0.1 and reference URLs point at a local server.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import IORedis from 'ioredis';
import { loadConfig } from '@mediagen/config';
import { createTestSchema } from '@mediagen/db/testing';
import { deleteKeysWithPrefix } from '@mediagen/queue';
import { createDeps, closeDeps, GatewayDeps } from '../../apps/gateway/src/deps';
import { createApp } from '../../apps/gateway/src/app';

export const ADMIN_TOKEN = 'hostile-script-admin-token-0123';

export interface HostileStack {
  base: string;
  deps: GatewayDeps;
  newAccount(balanceCents: number, extra?: Record<string, unknown>): Promise<{ id: string; key: string }>;
  close(): Promise<void>;
}

export async function startHostileStack(label: string, env: Record<string, string> = {}): Promise<HostileStack> {
  const schema = await createTestSchema(label);
  const prefix = `script:${label}:${randomBytes(4).toString('hex')}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `mg-${label}-`));
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: schema.url,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_PREFIX: prefix,
    ADMIN_TOKEN,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    ALLOW_PRIVATE_MEDIA_URLS: 'true', // the hostile reference server is on loopback
    PUBLIC_BASE_URL: 'http://127.0.0.1:1',
    INSTANT_WAIT_MS: '0',
    MEDIA_TIMEOUT_MS: '3000',
    ...env,
  });
  const deps = await createDeps(config);
  const server = http.createServer(createApp(deps));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const admin = { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' };
  return {
    base,
    deps,
    async newAccount(balanceCents, extra = {}) {
      const acc = await (await fetch(`${base}/admin/accounts`, { method: 'POST', headers: admin, body: JSON.stringify({ name: label, balanceCents, ...extra }) })).json() as { id: string };
      const key = await (await fetch(`${base}/admin/accounts/${acc.id}/api-keys`, { method: 'POST', headers: admin })).json() as { key: string };
      return { id: acc.id, key: key.key };
    },
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await closeDeps(deps);
      const r = new IORedis(config.REDIS_URL);
      await deleteKeysWithPrefix(r, prefix);
      await r.quit();
      await schema.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * How long the event loop was held, sampled by a 5 ms timer (its lateness). On a shared machine
 * (our CI boxes: 2 cores, load average ~15) a timer is also late while the OS runs other
 * processes, which is not this process holding its loop: `held` counts the lateness only up to the
 * CPU time this process used in that gap (process.cpuUsage, all its threads: an upper bound of the
 * main thread's share). `wall` is the raw lateness, printed alongside.
 */
export function loopWatch(): { max(): number; maxAt(): number; p99(): number; wallMax(): number; stop(): void } {
  const held: number[] = [];
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  let worst = 0;
  let worstAt = 0;
  let wallWorst = 0;
  const t = setInterval(() => {
    const now = performance.now();
    const cpu = process.cpuUsage(lastCpu);
    const lag = Math.max(0, now - last - 5);
    const h = Math.min(lag, (cpu.user + cpu.system) / 1000);
    held.push(h);
    if (h > worst) [worst, worstAt] = [h, now];
    wallWorst = Math.max(wallWorst, lag);
    last = now;
    lastCpu = process.cpuUsage();
  }, 5);
  return {
    max: () => worst,
    maxAt: () => worstAt,
    wallMax: () => wallWorst,
    p99: () => {
      const s = [...held].sort((a, b) => a - b);
      return s[Math.floor(s.length * 0.99)] ?? 0;
    },
    stop: () => clearInterval(t),
  };
}

/** A small deterministic PRNG (mulberry32): the same seed replays the same cases. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const percentile = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? 0;
};
