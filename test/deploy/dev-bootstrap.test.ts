// `npm start` in development prints an API key and a console operator on its READY line; both must
// work as printed. A production start against the same database revokes the public key (the
// gateway's revokeDevelopmentKey), and an operator can be disabled or given another password in
// between: the next development start makes them valid again and says so.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import IORedis from 'ioredis';
import { loadConfig } from '@mediagen/config';
import { createDb, disableOperator } from '@mediagen/db';
import { createTestSchema, type TestSchema } from '@mediagen/db/testing';
import { deleteKeysWithPrefix } from '@mediagen/queue';
import { bootstrapDevAccount } from '../../scripts/dev-bootstrap';
import { createDeps, closeDeps, type GatewayDeps } from '../../apps/gateway/src/deps';
import { gatewayListener } from '../../apps/gateway/src/server';
import { revokeDevelopmentKey } from '../../apps/gateway/src/services/dev-key';

let schema: TestSchema;
let deps: GatewayDeps;
let app: ReturnType<typeof gatewayListener>;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-dev-bootstrap-'));
const prefix = `test:devboot:${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  schema = await createTestSchema('dev_bootstrap');
});
/** A gateway as the next development start runs it (a new process: nothing cached). */
async function startGateway(): Promise<void> {
  deps = await createDeps(
    loadConfig({ NODE_ENV: 'development', DATABASE_URL: schema.url, REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', REDIS_PREFIX: prefix, DATA_DIR: dataDir, LOG_LEVEL: 'silent', PUBLIC_BASE_URL: 'http://127.0.0.1:1' }),
  );
  app = gatewayListener(deps);
}
afterAll(async () => {
  if (deps) await closeDeps(deps);
  const r = new IORedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  await deleteKeysWithPrefix(r, prefix);
  await r.quit();
  await schema.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function signIn(name: string, password: string): Promise<number> {
  const agent = request.agent(app);
  const form = await agent.get('/console/login');
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)![1];
  return (await agent.post('/console/login').type('form').send({ _csrf: csrf, name, password })).status;
}
const balance = (key: string) => request(app).get('/api/balance').set('Authorization', `Bearer ${key}`);

it('the printed key and operator work; after a production start revoked the key, the next start re-activates it and says so', async () => {
  const first = await bootstrapDevAccount(schema.url, dataDir);
  expect(first).toMatchObject({ keyReactivated: false, operator: { name: 'dev', reset: false } });
  expect(first.operator.password.length).toBeGreaterThanOrEqual(12);

  // What a production gateway does at start against this database.
  const db = createDb(schema.url, { poolSize: 1 });
  try {
    expect(await revokeDevelopmentKey(db)).toBe(1);
    await disableOperator(db, 'dev');
  } finally {
    await db.$disconnect();
  }

  const again = await bootstrapDevAccount(schema.url, dataDir);
  expect(again).toMatchObject({ apiKey: first.apiKey, keyReactivated: true, operator: { name: 'dev', password: first.operator.password, reset: true } });
  await startGateway();
  expect((await balance(again.apiKey)).status).toBe(200);
  expect(await signIn('dev', again.operator.password)).toBe(303);

  // A third start changes nothing: the password file is reused, nothing was revoked.
  expect(await bootstrapDevAccount(schema.url, dataDir)).toMatchObject({ keyReactivated: false, operator: { password: first.operator.password, reset: false } });
  expect((fs.statSync(path.join(dataDir, 'dev-operator.password')).mode & 0o777)).toBe(0o600);
});
