// With S3 storage, downloads that clients abandon (players abort on every seek, slow
// readers that stop reading or go away) give their S3 sockets back. Before the fix, 20 aborted
// downloads held 20 of the SDK's pooled sockets for good, and after 300 slow readers 255 of 256
// were still held: every later file GET then timed out. A local S3 (s3rver) with the deployment's
// own client configuration (createS3Client); the sockets are counted in that client's agent and at
// the server.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { S3StorageDriver } from '@mediagen/storage/s3';
import { LocalS3, startLocalS3 } from '@mediagen/storage/testing';
import { createFilesRouter } from '../src/routes/files.routes';
import { waitFor } from '../../../test/e2e/support/wait';

jest.setTimeout(90_000);

const KEY = 'results/s3-aborts/0.mp4';
const SIZE = 8 * 1024 * 1024;

let s3: LocalS3;
let server: http.Server;
let port: number;

beforeAll(async () => {
  s3 = await startLocalS3('mediagen-aborts');
  const storage = new S3StorageDriver(s3.client, { bucket: s3.bucket });
  await storage.put(KEY, Buffer.alloc(SIZE, 7), 'video/mp4');
  // A short inactivity limit, so a reader that stalls without hanging up is cut within the test.
  const app = express().use('/files', createFilesRouter(storage, { idleMs: 1_500 }));
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await s3.stop();
});

/** Waits until no S3 socket is busy and the gateway holds no client connection; returns the last counts. */
/** The sockets once nothing is busy (or as they are after `ms`: the caller's expectation says what leaked). */
async function settled(ms = 20_000) {
  let last = { busy: -1, idle: -1, queued: -1, gatewayConnections: -1, s3Connections: -1 };
  await waitFor(async () => {
    const gatewayConnections = await new Promise<number>((r) => server.getConnections((_e, n) => r(n)));
    last = { ...s3.agentSockets(), gatewayConnections, s3Connections: await s3.serverConnections() };
    return last.busy === 0 && last.queued === 0 && gatewayConnections === 0;
  }, ms, 'S3 sockets given back').catch(() => undefined);
  return last;
}

/** A download through the gateway; `onFirst` decides what the client does once bytes arrive. */
function download(onFirst: (req: http.ClientRequest, res: http.IncomingMessage) => void, headers: Record<string, string> = {}): Promise<void> {
  return new Promise<void>((resolve) => {
    const req = http.get({ port, host: '127.0.0.1', path: `/files/${KEY}`, headers, agent: false }, (res) => {
      res.once('data', () => onFirst(req, res));
      res.once('close', () => resolve());
    });
    req.on('error', () => resolve());
  });
}

it('a full download works and leaves its socket idle in the pool (the baseline)', async () => {
  let bytes = 0;
  await new Promise<void>((resolve) =>
    http.get({ port, host: '127.0.0.1', path: `/files/${KEY}`, agent: false }, (res) => res.on('data', (c: Buffer) => (bytes += c.length)).on('end', resolve)),
  );
  expect(bytes).toBe(SIZE);
  const s = await settled();
  expect(s.busy).toBe(0);
  expect(s.idle).toBeGreaterThanOrEqual(1);
});

it('100 downloads aborted after their first bytes give every S3 socket back', async () => {
  await Promise.all(
    Array.from({ length: 100 }, (_, i) =>
      download((req) => req.destroy(), i % 2 ? { Range: 'bytes=1000-' } : {}),
    ),
  );
  const s = await settled();
  expect(s).toMatchObject({ busy: 0, queued: 0, gatewayConnections: 0 });
  // Nothing held open at the server beyond the client's idle keep-alive pool.
  expect(s.s3Connections).toBeLessThanOrEqual(s.idle + s.busy);
});

it('60 slow readers that stop reading and then go away give every S3 socket back', async () => {
  const readers: http.ClientRequest[] = [];
  await Promise.all(
    Array.from({ length: 60 }, () =>
      new Promise<void>((started) => {
        // An answer that ends before any byte (an error under load) must not hang the test.
        void download((req, res) => {
          res.pause(); // reads nothing more: the gateway's writes back up, S3's body with them
          readers.push(req);
          started();
        }).then(started);
      }),
    ),
  );
  // While they stall, the S3 sockets are legitimately busy (each answer is half read).
  await waitFor(() => s3.agentSockets().busy > 0, 10_000, 'S3 sockets busy with the stalled answers');
  for (const r of readers) r.destroy(); // the clients exit
  const s = await settled();
  expect(s).toMatchObject({ busy: 0, queued: 0, gatewayConnections: 0 });
  expect(s.s3Connections).toBeLessThanOrEqual(s.idle + s.busy);
});

it('60 readers that stall without hanging up are cut by the inactivity limit, sockets back to idle', async () => {
  await Promise.all(
    Array.from({ length: 60 }, () =>
      new Promise<void>((started) => {
        void download((_req, res) => {
          res.pause();
          started();
        }).then(started);
      }),
    ),
  );
  expect(s3.agentSockets().busy).toBeGreaterThan(0);
  const s = await settled(30_000);
  expect(s).toMatchObject({ busy: 0, queued: 0, gatewayConnections: 0 });
  // And the pool still serves: a fresh download completes.
  let bytes = 0;
  await new Promise<void>((resolve) =>
    http.get({ port, host: '127.0.0.1', path: `/files/${KEY}`, headers: { Range: 'bytes=0-99' }, agent: false }, (res) => res.on('data', (c: Buffer) => (bytes += c.length)).on('end', resolve)),
  );
  expect(bytes).toBe(100);
});
