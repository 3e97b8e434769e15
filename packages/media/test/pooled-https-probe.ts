// Run by pooled-https.test.ts in a child process started with NODE_EXTRA_CA_CERTS=fixtures/tls-test.crt
// (as https-probe.ts): a pooled download over TLS. Prints one JSON line: the body's sha256 and size
// per host name, or the error.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { BufferPool } from '../src/buffer-pool';
import { pooledHop, POOLED_CHUNK } from '../src/pooled-request';
import { FIXTURES } from './media-server';

export const BODY = Buffer.alloc(5 * 1024 * 1024 + 17);
for (let i = 0; i + 4 <= BODY.length; i += 4) BODY.writeUInt32LE((i * 2654435761) >>> 0, i);

async function main(): Promise<void> {
  const server = https.createServer({ key: readFileSync(path.join(FIXTURES, 'tls-test.key')), cert: readFileSync(path.join(FIXTURES, 'tls-test.crt')) }, (_req, res) => {
    res.writeHead(200, { 'content-length': String(BODY.length) });
    res.end(BODY);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const pool = new BufferPool(POOLED_CHUNK, 8);
  const get = pooledHop(pool);
  const out: Record<string, unknown> = {};
  for (const host of ['media.example.test', 'wrong.example.test']) {
    try {
      const res = await get(new URL(`https://${host}:${port}/video.mp4`), [{ address: '127.0.0.1', family: 4 }], {}, AbortSignal.timeout(10_000));
      const h = createHash('sha256');
      let bytes = 0;
      for (let c = await res.body.nextChunk(); c; c = await res.body.nextChunk()) {
        h.update(c);
        bytes += c.length;
      }
      res.body.close();
      out[host] = { sha256: h.digest('hex'), bytes };
    } catch (e) {
      out[host] = (e as Error).message;
    }
  }
  out.allocated = pool.allocated;
  server.close();
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

if (require.main === module)
  main().catch((e) => {
    process.stderr.write(String(e?.stack ?? e));
    process.exit(1);
  });
