// The pooled download over https (pooled-request.ts): the body arrives whole through the pool's
// buffers as over plain TCP, the certificate is verified against the URL's host name while the
// socket goes to the checked address, and an untrusted certificate is refused.

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pooledRequest } from '../src/pooled-request';
import { FIXTURES } from './media-server';
import { BODY } from './pooled-https-probe';

const ROOT = path.resolve(__dirname, '../../..');

test('a trusted certificate: the bytes arrive whole through pooled buffers; a name it does not cover is refused', async () => {
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(
      process.execPath,
      [path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'), path.join(__dirname, 'pooled-https-probe.ts')],
      { cwd: ROOT, env: { ...process.env, NODE_EXTRA_CA_CERTS: path.join(FIXTURES, 'tls-test.crt') }, timeout: 20_000 },
      (err, out, errOut) => (err ? reject(new Error(`${err.message}\n${errOut}`)) : resolve(out)),
    );
  });
  const result = JSON.parse(stdout.trim().split('\n').pop()!);
  expect(result['media.example.test']).toEqual({ sha256: createHash('sha256').update(BODY).digest('hex'), bytes: BODY.length });
  expect(result['wrong.example.test']).toBe('could not be fetched (TLS error ERR_TLS_CERT_ALTNAME_INVALID)');
  // 5 MiB through 256 KiB buffers, and only a transfer's handful ever allocated.
  expect(result.allocated).toBeLessThanOrEqual(4);
});

test('an untrusted (self-signed) certificate is refused: verification stays on', async () => {
  let requests = 0;
  const server = https.createServer({ key: readFileSync(path.join(FIXTURES, 'tls-test.key')), cert: readFileSync(path.join(FIXTURES, 'tls-test.crt')) }, (_req, res) => {
    requests += 1;
    res.end('x');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const port = (server.address() as AddressInfo).port;
    const err = await pooledRequest(new URL(`https://media.example.test:${port}/v.mp4`), [{ address: '127.0.0.1', family: 4 }], {}, AbortSignal.timeout(5000)).then(() => null, (e: Error) => e);
    expect(err?.message).toMatch(/could not be fetched \(TLS error (DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)\)/);
    expect(requests).toBe(0);
  } finally {
    server.close();
  }
});
