// https through the pinned connection: the certificate is verified against the URL's host name
// while the socket goes to the address that passed the policy check.

import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { inspectReferences } from '../src';
import { FIXTURES, startMediaServer, urlRef } from './media-server';

const ROOT = path.resolve(__dirname, '../../..');

test('a trusted certificate for the host name works; a name it does not cover is refused', async () => {
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(
      process.execPath,
      [path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'), path.join(__dirname, 'https-probe.ts')],
      { cwd: ROOT, env: { ...process.env, NODE_EXTRA_CA_CERTS: path.join(FIXTURES, 'tls-test.crt') }, timeout: 20_000 },
      (err, out, errOut) => (err ? reject(new Error(`${err.message}\n${errOut}`)) : resolve(out)),
    );
  });
  const result = JSON.parse(stdout.trim().split('\n').pop()!);
  expect(result['media.example.test']).toEqual([12.5]);
  expect(result['wrong.example.test']).toMatch(/^media\[0\]\.url: could not be fetched \(TLS error ERR_TLS_CERT_ALTNAME_INVALID\)$/);
});

test('an untrusted (self-signed) certificate is refused: verification stays on', async () => {
  const tls = { key: readFileSync(path.join(FIXTURES, 'tls-test.key')), cert: readFileSync(path.join(FIXTURES, 'tls-test.crt')) };
  const srv = await startMediaServer(tls);
  try {
    const port = new URL(srv.origin).port;
    const policy = { allowPrivate: true, timeoutMs: 3000, maxBytesPerRef: 1 << 20, maxRedirects: 3, resolve: async () => [{ address: '127.0.0.1', family: 4 as const }] };
    const err = await inspectReferences([urlRef('video', `https://media.example.test:${port}/files/video-1s.mp4`)], policy).then(() => null, (e: Error) => e);
    expect(err?.message).toMatch(/could not be fetched \(TLS error (DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)\)/);
    expect(srv.sent.size).toBe(0);
  } finally {
    await srv.close();
  }
});
