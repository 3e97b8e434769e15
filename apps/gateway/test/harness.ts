// In-process gateway for integration tests: its own Postgres schema and Redis key prefix, real
// Postgres and Redis, supertest against the gateway's request listener (server.ts: the cached-poll
// lane, then the Express app), as production serves it. Everything is removed in close().
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import IORedis from 'ioredis';
import http from 'node:http';
import type { Express } from 'express';
import { loadConfig } from '@mediagen/config';
import { createTestSchema, TestSchema } from '@mediagen/db/testing';
import { ledgerDiscrepancies } from '@mediagen/db';
import { deleteKeysWithPrefix } from '@mediagen/queue';
import { createDeps, closeDeps, GatewayDeps } from '../src/deps';
import { createApp } from '../src/app';
import { gatewayListener, GatewayListener } from '../src/server';

export const ADMIN = 'test-admin-token-0123456789';

export interface Harness {
  /** The gateway's request listener: what supertest drives (request(h.app)). */
  app: GatewayListener;
  /** The Express app behind it (settings such as the ETag function). */
  express: Express;
  /** A server with the gateway's listener, listening on `port` (0: any free one). */
  listen(port: number, host?: string): http.Server;
  deps: GatewayDeps;
  schema: TestSchema;
  admin: () => { Authorization: string };
  newAccount(opts?: { balanceCents?: number; maxConcurrentTasks?: number; rateLimitPerMinute?: number }): Promise<{ id: string; key: string; auth: { Authorization: string } }>;
  assertLedgerInvariant(): Promise<void>;
  close(): Promise<void>;
}

/** `opts.databaseUrl` rewrites the schema's URL the gateway uses (e.g. through a proxy a test can cut). */
export async function startHarness(
  label: string,
  env: Record<string, string> = {},
  opts: { databaseUrl?: (schemaUrl: string) => string } = {},
): Promise<Harness> {
  const schema = await createTestSchema(label);
  const prefix = `test:${label}:${randomBytes(4).toString('hex')}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `mg-${label}-`));
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: opts.databaseUrl ? opts.databaseUrl(schema.url) : schema.url,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_PREFIX: prefix,
    ADMIN_TOKEN: ADMIN,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    ALLOW_PRIVATE_MEDIA_URLS: 'true',
    PUBLIC_BASE_URL: 'http://127.0.0.1:1',
    ...env,
  });
  const deps = await createDeps(config);
  const express = createApp(deps);
  const app = gatewayListener(deps, express);
  const admin = () => ({ Authorization: `Bearer ${ADMIN}` });
  return {
    app,
    express,
    listen: (port, host) => (host === undefined ? http.createServer(app).listen(port) : http.createServer(app).listen(port, host)),
    deps,
    schema,
    admin,
    async newAccount(opts = {}) {
      const acc = await request(app).post('/admin/accounts').set(admin()).send({ name: 'acct', balanceCents: 10_000, ...opts });
      if (acc.status !== 201) throw new Error(`account: ${acc.status} ${JSON.stringify(acc.body)}`);
      const key = await request(app).post(`/admin/accounts/${acc.body.id}/api-keys`).set(admin());
      return { id: acc.body.id, key: key.body.key, auth: { Authorization: `Bearer ${key.body.key}` } };
    },
    async assertLedgerInvariant() {
      expect(await ledgerDiscrepancies(deps.db)).toEqual([]);
      const dup = await deps.db.$queryRaw<{ n: bigint }[]>`
        SELECT count(*) AS n FROM (SELECT "taskId", "kind" FROM "LedgerEntry" WHERE "taskId" IS NOT NULL GROUP BY 1, 2 HAVING count(*) > 1) d`;
      expect(Number(dup[0].n)).toBe(0);
    },
    async close() {
      await closeDeps(deps);
      const r = new IORedis(config.REDIS_URL);
      await deleteKeysWithPrefix(r, prefix);
      await r.quit();
      await schema.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
