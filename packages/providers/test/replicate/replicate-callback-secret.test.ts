// Replicate callbacks must not be a lever to make us call Replicate: a callback without a
// signature fetches nothing; while the secret is not cached, concurrent callbacks share one fetch;
// after a failed fetch the next waits a minute; a poll-only channel takes no callbacks; and in
// production a channel with callbacks needs its webhookSecret.
import { Webhook } from 'standardwebhooks';
import { createReplicateAdapter } from '../../src/replicate/replicate-adapter';
import type { ReplicateChannel } from '../../src/replicate/replicate-config';
import { ReplicateSecret, SECRET_REFETCH_MIN_MS } from '../../src/replicate/replicate-webhook';
import { ChannelConfigError, parseChannelConfig } from '../../src/channel-config';
import { FakeUpstream, startFakeUpstream } from '../gemini/fake-upstream';

const fixture = (name: string) => require(`../../src/replicate/__fixtures__/${name}.json`);
const SECRET = fixture('replicate-webhook-secret').key as string;
const body = Buffer.from(JSON.stringify(fixture('replicate-prediction-succeeded-video')));
const signed = (secret: string) => {
  const at = new Date();
  return { 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(secret).sign('msg_1', at, body) };
};

let up: FakeUpstream;
beforeAll(async () => {
  up = await startFakeUpstream();
});
afterAll(() => up.close());
beforeEach(() => up.reset());

const channel = (extra: Partial<ReplicateChannel> = {}): ReplicateChannel =>
  ({
    id: 'rep-test', protocol: 'replicate', baseUrl: `${up.base}/v1`, apiKey: 'r8_key', tier: null, costOrder: 10, models: { 'video-c-3.1-pro': 'google/veo-3.1' },
    reportsViolations: true, maxInFlight: 10, enabled: true, maxResponseBytes: 64 << 20, callbacks: true, orphanSearch: true, prices: {},
    timeouts: { submitMs: 5_000, pollMs: 5_000, downloadMs: 5_000 }, poll: { firstMs: 0, minMs: 100, maxMs: 1000 },
    ...extra,
  }) as ReplicateChannel;

const secretFetches = () => up.requests.filter((r) => r.path === '/v1/webhooks/default/secret').length;

it('20 callbacks without a signature fetch nothing; 20 forged ones at once share one fetch', async () => {
  up.on('GET', '/v1/webhooks/default/secret', async () => {
    await new Promise((r) => setTimeout(r, 100)); // a slow upstream, so the forged callbacks overlap its fetch
    return { body: fixture('replicate-webhook-secret') };
  });
  const a = createReplicateAdapter(channel());
  const unsigned = await Promise.all(Array.from({ length: 20 }, () => a.verifyCallback!({ headers: { 'content-type': 'application/json' }, rawBody: body, query: {} })));
  expect(unsigned.every((v) => v === null)).toBe(true);
  expect(secretFetches()).toBe(0);
  const forged = await Promise.all(Array.from({ length: 20 }, () => a.verifyCallback!({ headers: signed(`whsec_${Buffer.from('not the secret 0123456').toString('base64')}`), rawBody: body, query: {} })));
  expect(forged.every((v) => v === null)).toBe(true);
  expect(secretFetches()).toBe(1);
  // Cached from then on.
  expect(await a.verifyCallback!({ headers: signed(SECRET), rawBody: body, query: {} })).toMatchObject({ upstreamId: expect.any(String) });
  expect(secretFetches()).toBe(1);
  a.close();
});

it('after a failed fetch the next one waits SECRET_REFETCH_MIN_MS; callbacks meanwhile fail at once without a call', async () => {
  let now = 1_000_000;
  let calls = 0;
  let fail = true;
  const s = new ReplicateSecret(undefined, async () => {
    calls += 1;
    if (fail) throw new Error('HTTP 503');
    return SECRET;
  }, () => now);
  await expect(s.get()).rejects.toThrow('HTTP 503');
  for (let i = 0; i < 20; i++) await expect(s.get()).rejects.toThrow('HTTP 503');
  expect(calls).toBe(1);
  fail = false;
  now += SECRET_REFETCH_MIN_MS - 1;
  await expect(s.get()).rejects.toThrow('HTTP 503');
  now += 1;
  await expect(s.get()).resolves.toBe(SECRET);
  await expect(s.get()).resolves.toBe(SECRET);
  expect(calls).toBe(2);
});

it('a poll-only channel (callbacks: false) passes no webhook and takes no callbacks', async () => {
  const a = createReplicateAdapter(channel({ callbacks: false }));
  expect(a.capabilities.callbacks).toBe('none');
  a.close();
});

describe('in production', () => {
  const raw = (extra: Record<string, unknown>) => ({
    channels: [{ id: 'rep', protocol: 'replicate', baseUrl: 'https://api.replicate.com/v1', apiKey: 'r8', costOrder: 1, models: { 'video-c-3.1-pro': 'google/veo-3.1' }, ...extra }],
  });
  it('refuses a replicate channel with callbacks and no webhookSecret, naming the channel and the way out', () => {
    expect(() => parseChannelConfig(raw({}), {}, 'channels.json', { production: true })).toThrow(ChannelConfigError);
    expect(() => parseChannelConfig(raw({}), {}, 'channels.json', { production: true })).toThrow(/channel rep, field webhookSecret: required in production.*"callbacks": false/);
  });
  it('accepts it with a secret, or polling only; outside production as before', () => {
    expect(parseChannelConfig(raw({ webhookSecret: SECRET }), {}, 'channels.json', { production: true }).channels).toHaveLength(1);
    expect(parseChannelConfig(raw({ callbacks: false }), {}, 'channels.json', { production: true }).channels).toHaveLength(1);
    expect(parseChannelConfig(raw({}), {}, 'channels.json', {}).channels).toHaveLength(1);
  });
});
