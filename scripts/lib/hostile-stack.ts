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

export { loopWatch } from '../../apps/gateway/test/loop-watch';

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
