// The simulator's webhook signing keys come from its options (SIM_FAL_WEBHOOK_KEY and
// SIM_REPLICATE_WEBHOOK_SECRET, parsed once by packages/config), not from process.env: a fixed key
// given to one simulator is the one it publishes, and a simulator given none publishes its own.
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync } from 'node:crypto';
import { loadConfig } from '@mediagen/config';
import { parseChannelConfig } from '@mediagen/providers';
import { createSimServer, type SimOptions } from '../src/sim-server';

const channels = parseChannelConfig({
  channels: [
    { id: 'fal-a', protocol: 'fal', baseUrl: 'http://127.0.0.1:1/fal', apiKey: 'fal-key-a', costOrder: 10, models: { 'image-b-2.5': 'fal-ai/nano-banana' } },
    { id: 'rep-a', protocol: 'replicate', baseUrl: 'http://127.0.0.1:1/replicate/v1', apiKey: 'r8_a', costOrder: 20, models: { 'image-b-2.5': 'google/nano-banana' } },
  ],
});

async function published(extra: Partial<SimOptions>): Promise<{ x: string; secret: string }> {
  const sim = createSimServer({ channels, renderMs: 100, latencyMs: 0, ...extra });
  await new Promise<void>((r) => sim.server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(sim.server.address() as AddressInfo).port}`;
  try {
    const jwks = (await (await fetch(`${base}/fal/.well-known/jwks.json`)).json()) as { keys: { x: string }[] };
    const secret = (await (await fetch(`${base}/replicate/v1/webhooks/default/secret`, { headers: { Authorization: 'Bearer r8_a' } })).json()) as { key: string };
    return { x: jwks.keys[0].x, secret: secret.key };
  } finally {
    sim.server.closeAllConnections();
    await new Promise<void>((r) => sim.server.close(() => r()));
  }
}

it('publishes the keys it was configured with', async () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const config = loadConfig({
    NODE_ENV: 'test',
    SIM_FAL_WEBHOOK_KEY: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    SIM_REPLICATE_WEBHOOK_SECRET: 'whsec_c2ltdWxhdG9yLXNlY3JldA==',
  });
  const got = await published({ falWebhookKey: config.SIM_FAL_WEBHOOK_KEY, replicateWebhookSecret: config.SIM_REPLICATE_WEBHOOK_SECRET });
  expect(got).toEqual({ x: publicKey.export({ format: 'jwk' }).x, secret: 'whsec_c2ltdWxhdG9yLXNlY3JldA==' });
});

it('makes its own keys when none are configured, whatever the environment says', async () => {
  process.env.SIM_REPLICATE_WEBHOOK_SECRET = 'whsec_ZnJvbS1wcm9jZXNzLWVudg==';
  try {
    const got = await published({});
    expect(got.secret).toMatch(/^whsec_/);
    expect(got.secret).not.toBe('whsec_ZnJvbS1wcm9jZXNzLWVudg==');
    expect(got.x).toMatch(/^[\w-]{43}$/);
  } finally {
    delete process.env.SIM_REPLICATE_WEBHOOK_SECRET;
  }
});
