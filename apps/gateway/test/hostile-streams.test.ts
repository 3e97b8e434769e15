// Aborted downloads give back their file descriptors and sockets; a gateway
// started while Redis was down subscribes to revocations once Redis is back. Real Postgres/Redis.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import IORedis from 'ioredis';
import { startHarness, Harness } from './harness';
import { TaskEvents } from '../src/services/task-events';
import { startTcpProxy } from '../../../test/e2e/support/tcp-proxy';
import { waitFor } from '../../../test/e2e/support/wait';

jest.setTimeout(30_000);

const openFds = () => fs.readdirSync('/proc/self/fd').length;

describe('7: aborted downloads', () => {
  let h: Harness;
  let server: http.Server;
  let port: number;
  beforeAll(async () => {
    h = await startHarness('hostile_streams', { FILES_RATE_LIMIT_PER_MINUTE: '100000' });
    await h.deps.storage.put('results/aborts/0.mp4', Buffer.alloc(8 * 1024 * 1024, 1), 'video/mp4');
    server = h.listen(0);
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await h.close();
  });

  it('100 clients that go away mid-download leave no descriptor or socket behind', async () => {
    // One full download first: the first file read sets up libuv's machinery (io_uring, thread
    // pool), whose descriptors stay for the life of the process and are not a leak.
    await new Promise<void>((resolve) => http.get({ port, path: '/files/results/aborts/0.mp4', agent: false }, (res) => res.resume().on('end', resolve)));
    // The gateway's Postgres pool (20 connections, apps/gateway/src/deps.ts) grows with concurrent
    // requests, and its connections are descriptors of this process too: on a fast Node (24) the
    // burst below opened a dozen or more of them. Open them all first, so what is counted is the
    // downloads' own descriptors.
    await Promise.all(Array.from({ length: 25 }, () => h.deps.db.$queryRaw`SELECT 1 AS one FROM pg_sleep(0.2)`));
    // The first download's connection closes after its answer: count from a gateway with none open.
    const connections = () => new Promise<number>((r) => server.getConnections((_e, n) => r(n)));
    await waitFor(async () => (await connections()) === 0, 5_000, 'the first download closed');
    const fdsBefore = openFds();
    await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        new Promise<void>((resolve) => {
          const req = http.get({ port, path: '/files/results/aborts/0.mp4', headers: i % 2 ? { Range: 'bytes=1000-' } : {}, agent: false }, (res) => {
            res.once('data', () => {
              req.destroy(); // a player seeking: the connection is dropped after the first bytes
              resolve();
            });
          });
          req.on('error', () => resolve());
        }),
      ),
    );
    let fds = openFds();
    let conns = -1;
    // Closing is asynchronous: wait (5 s at most) for the state a leak would never reach.
    await waitFor(async () => {
      [fds, conns] = [openFds(), await connections()];
      return fds <= fdsBefore + 10 && conns === 0;
    }, 5_000, 'descriptors and connections given back').catch(() => undefined);
    expect(conns).toBe(0);
    // A few descriptors of the test process itself may come and go; a leak is one per download (~100).
    expect(fds).toBeLessThanOrEqual(fdsBefore + 10);
  });
});

describe('16: a gateway started while Redis was down', () => {
  it('subscribes to revocations once Redis is back', async () => {
    const redisPort = Number(new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379').port || 6379);
    const proxy = await startTcpProxy(redisPort);
    await proxy.cut();
    const events = new TaskEvents(proxy.url('redis'), `test:hostile16:${process.pid}`);
    const heard: string[] = [];
    events.onKeyRevoked((hash) => heard.push(hash));
    await events.start(); // returns while Redis is still away
    await proxy.restore();
    expect(await events.subscribed).toBe(true);
    const pub = new IORedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    await pub.publish(events.revokeChannel, 'a'.repeat(64));
    await waitFor(() => heard.length > 0, 5_000, 'the revocation heard').catch(() => undefined);
    expect(heard).toEqual(['a'.repeat(64)]);
    await pub.quit();
    await events.stop();
    await proxy.close();
  });
});
