// On the worker: a database that stops answering mid-render (a partition:
// connections stay open, nothing comes back on them, ever, as when a NAT or firewall dropped
// their state). With the DB_* timeouts the worker's steps give up on those connections instead of
// hanging on them for the kernel's retransmit time, are retried after a backoff on new ones, and
// every task completes once the database answers again; nothing is charged or refunded twice.
import { ledgerDiscrepancies } from '@mediagen/db';
import { baseTestDatabaseUrl } from '@mediagen/db/testing';
import { startTcpProxy, TcpProxy } from '../../../test/e2e/support/tcp-proxy';
import { waitFor } from '../../../test/e2e/support/wait';
import { InProcess, startInProcess } from './in-process';

jest.setTimeout(60_000);

let w: InProcess;
let pgProxy: TcpProxy;
beforeAll(async () => {
  const pg = new URL(baseTestDatabaseUrl());
  pgProxy = await startTcpProxy(Number(pg.port || 5432), pg.hostname);
  w = await startInProcess(
    (base) => ({
      channels: [{ id: 'only', baseUrl: `${base}/ch/only`, apiKey: 'k', costOrder: 1, models: { 'video-a-h3': 'm' }, poll: { firstMs: 100, minMs: 100, maxMs: 200 } }],
    }),
    { DB_CONNECT_TIMEOUT_MS: '500', DB_QUERY_TIMEOUT_MS: '1000', DB_STATEMENT_TIMEOUT_MS: '800' },
    { databaseUrl: (url) => pgProxy.via(url) },
  );
});
afterAll(async () => {
  await pgProxy.restore().catch(() => undefined);
  expect(await ledgerDiscrepancies(w.db)).toEqual([]);
  await w.stop();
  await pgProxy.close();
});

it('steps stuck on a silent database time out and are retried; every task completes after it answers again', async () => {
  const ids = await Promise.all(Array.from({ length: 8 }, (_, i) => w.submit(`clip ${i} #sim:delay=1500`)));
  // Freeze once every render is in flight upstream (each job polls it), not at a guessed moment.
  await waitFor(async () => (await w.db.taskAttempt.count({ where: { taskId: { in: ids }, status: 'running', upstreamId: { not: null } } })) === ids.length, 15_000, 'every render in flight');
  pgProxy.freeze();
  // Stay frozen until the worker has given up on a silent connection and is trying new ones (which
  // the partition swallows too): the timeouts did their part.
  await waitFor(() => pgProxy.acceptedWhileFrozen >= 2, 20_000, 'new connections after a timed-out step');
  await pgProxy.restore();
  const done = await Promise.all(ids.map((id) => w.settled(id, 40_000)));
  expect(done.map((t) => t.status)).toEqual(ids.map(() => 'completed'));
  expect(await w.db.ledgerEntry.count({ where: { taskId: { in: ids }, kind: 'charge' } })).toBe(8);
  expect(await w.db.ledgerEntry.count({ where: { taskId: { in: ids }, kind: 'refund' } })).toBe(0);
});
