// A throwaway S3-compatible server for one test file: s3rver (the maintained @20minutes fork) on
// 127.0.0.1, a random port and a fresh temporary directory, with one bucket. stop() closes the
// server and the client and removes the directory.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import S3rver from '@20minutes/s3rver';
import { createS3Client } from '../src/s3-client';

export interface LocalS3 {
  endpoint: string;
  bucket: string;
  dir: string;
  /** Settings as loadConfig would produce them for this server. */
  settings: {
    STORAGE_DRIVER: 's3';
    S3_BUCKET: string;
    S3_REGION: string;
    S3_ENDPOINT: string;
    S3_FORCE_PATH_STYLE: boolean;
    S3_ACCESS_KEY_ID: string;
    S3_SECRET_ACCESS_KEY: string;
  };
  client: S3Client;
  /**
   * Sockets of `client`'s HTTP agent: `busy` carry a request or an unread answer,
   * `idle` wait in the keep-alive pool. A leaked download shows as a busy socket that never frees.
   */
  agentSockets(client?: S3Client): { busy: number; idle: number; queued: number };
  /** Connections open at the server (busy and idle keep-alive ones alike). */
  serverConnections(): Promise<number>;
  stop(): Promise<void>;
}

export async function startLocalS3(bucket = 'mediagen-test'): Promise<LocalS3> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-s3-'));
  // require() rather than import: the package is CommonJS with `module.exports = S3rver`.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Server = require('@20minutes/s3rver') as typeof S3rver;
  const server = new Server({ address: '127.0.0.1', port: 0, directory: dir, silent: true, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  // s3rver accepts its fixed development credentials (S3RVER / S3RVER) and checks the signature.
  const settings = {
    STORAGE_DRIVER: 's3' as const,
    S3_BUCKET: bucket,
    S3_REGION: 'us-east-1',
    S3_ENDPOINT: endpoint,
    S3_FORCE_PATH_STYLE: true,
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
  };
  // The SDK warns once per process that its 2027 releases need Node 22 (docs/operations.md says
  // so); in test output that warning is only noise.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const client = createS3Client(settings);
  return {
    endpoint,
    bucket,
    dir,
    settings,
    client,
    agentSockets(c = client) {
      // The SDK creates its agent on the first request and keeps it in the handler's resolved config.
      const handler = c.config.requestHandler as unknown as { config?: { httpAgent?: import('node:http').Agent } };
      const agent = handler.config?.httpAgent;
      const count = (m: NodeJS.ReadOnlyDict<unknown[]> | undefined) => Object.values(m ?? {}).reduce((n, l) => n + (l?.length ?? 0), 0);
      return { busy: count(agent?.sockets), idle: count(agent?.freeSockets), queued: count(agent?.requests) };
    },
    serverConnections() {
      const http = (server as unknown as { httpServer?: import('node:net').Server }).httpServer;
      return new Promise((resolve) => (http ? http.getConnections((_e, n) => resolve(n)) : resolve(0)));
    },
    async stop() {
      client.destroy();
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
