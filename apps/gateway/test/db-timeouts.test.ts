// A database that stops answering (a partition: connections stay open, nothing
// comes back) must not hang requests for the kernel's retransmit time. With the DB_* timeouts the
// gateway answers 503 service_unavailable with the error body, quickly, and works again after.
import request from 'supertest';
import { baseTestDatabaseUrl } from '@mediagen/db/testing';
import { startTcpProxy, TcpProxy } from '../../../test/e2e/support/tcp-proxy';
import { startHarness, Harness } from './harness';
import { eventually } from '../../../test/e2e/support/wait';

let h: Harness;
let pgProxy: TcpProxy;
beforeAll(async () => {
  const pg = new URL(baseTestDatabaseUrl());
  pgProxy = await startTcpProxy(Number(pg.port || 5432), pg.hostname);
  h = await startHarness(
    'dbtimeouts',
    { INSTANT_WAIT_MS: '0', DB_CONNECT_TIMEOUT_MS: '500', DB_QUERY_TIMEOUT_MS: '1000', DB_STATEMENT_TIMEOUT_MS: '800' },
    { databaseUrl: (url) => pgProxy.via(url) },
  );
});
afterAll(async () => {
  await pgProxy.restore().catch(() => undefined);
  await h.assertLedgerInvariant();
  await h.close();
  await pgProxy.close();
});

it('answers 503 with the error body within the timeouts while the database does not answer, then recovers', async () => {
  const a = await h.newAccount({ balanceCents: 1000 });
  expect((await request(h.app).get('/api/balance').set(a.auth)).status).toBe(200);
  pgProxy.freeze();
  for (const send of [
    () => request(h.app).get('/api/balance').set(a.auth),
    () => request(h.app).post('/api/image/generate').set(a.auth).set('Idempotency-Key', 'during-partition').send({ model: 'image-b-2.5', prompt: 'p' }),
  ]) {
    const started = Date.now();
    const res = await send();
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ error: expect.any(String), code: 'service_unavailable' });
    expect(Date.now() - started).toBeLessThan(5_000);
  }
  await pgProxy.restore();
  // The same idempotency id works once the database is back: one task, one charge.
  const retry = () => request(h.app).post('/api/image/generate').set(a.auth).set('Idempotency-Key', 'during-partition').send({ model: 'image-b-2.5', prompt: 'p' });
  // The pool reconnects on its own: the client retries until the submit goes through.
  const res = await eventually('a submit through once the database is back', async () => {
    const r = await retry();
    return r.status === 200 ? r : null;
  }, 10_000);
  expect(res.status).toBe(200);
  expect((await request(h.app).get('/api/balance').set(a.auth)).body.balanceCents).toBe(1000 - 3);
});
