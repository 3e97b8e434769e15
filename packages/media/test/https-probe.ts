// Run by https.test.ts in a child process started with NODE_EXTRA_CA_CERTS=fixtures/tls-test.crt,
// the only way to make Node trust a test certificate without weakening the code under test.
// Prints one JSON line: what inspectReferences said for each URL.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { inspectReferences, type MediaPolicy } from '../src';
import { FIXTURES, startMediaServer, urlRef } from './media-server';

async function main(): Promise<void> {
  const tls = { key: readFileSync(path.join(FIXTURES, 'tls-test.key')), cert: readFileSync(path.join(FIXTURES, 'tls-test.crt')) };
  const srv = await startMediaServer(tls);
  const port = new URL(srv.origin).port;
  // Both names lead to the local server; the certificate names only media.example.test.
  const policy: MediaPolicy = {
    allowPrivate: true, timeoutMs: 3000, maxBytesPerRef: 1 << 20, maxRedirects: 3,
    resolve: async () => [{ address: '127.0.0.1', family: 4 }],
  };
  const out: Record<string, unknown> = {};
  for (const host of ['media.example.test', 'wrong.example.test']) {
    out[host] = await inspectReferences([urlRef('video', `https://${host}:${port}/files/video-12.5s.mp4`)], policy).then(
      (r) => r.measured.videoSeconds,
      (e: Error) => e.message,
    );
  }
  await srv.close();
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().catch((e) => {
  process.stderr.write(String(e?.stack ?? e));
  process.exit(1);
});
