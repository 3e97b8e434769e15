// DB_POOL_SIZE caps the connections one gateway opens: several gateways and workers on one Postgres
// must fit its max_connections, so a burst of requests queues for a connection instead of opening more.
import request from 'supertest';
import { baseTestDatabaseUrl } from '@mediagen/db/testing';
import { startTcpProxy, TcpProxy } from '../../../test/e2e/support/tcp-proxy';
import { startHarness, Harness } from './harness';

let h: Harness;
let pgProxy: TcpProxy;
beforeAll(async () => {
  const pg = new URL(baseTestDatabaseUrl());
  pgProxy = await startTcpProxy(Number(pg.port || 5432), pg.hostname);
  h = await startHarness('dbpoolsize', { DB_POOL_SIZE: '2' }, { databaseUrl: (url) => pgProxy.via(url) });
});
afterAll(async () => {
  await h.close();
  await pgProxy.close();
});

it('opens at most DB_POOL_SIZE connections under a burst, and answers every request', async () => {
  const accounts = await Promise.all(Array.from({ length: 4 }, () => h.newAccount({ balanceCents: 1000 })));
  const answers = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      request(h.app).post('/api/image/generate').set(accounts[i % 4].auth).set('Idempotency-Key', `burst-${i}`).send({ model: 'image-b-2.5', prompt: 'p' }),
    ),
  );
  expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200));
  expect(pgProxy.accepted).toBeGreaterThanOrEqual(1);
  expect(pgProxy.accepted).toBeLessThanOrEqual(2);
});
