// Signing (verified with the same library a client uses), the retry schedule, and the target
// policy of a delivery attempt: private addresses refused unless allowed, redirects not followed.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { activeSecrets, newWebhookSecret, nextRetryDelayMs, retryCount, sendWebhook, signWebhook } from '@mediagen/webhooks';

describe('signing', () => {
  it('signs so that a Standard Webhooks verifier accepts the body with either active secret, and nothing else', () => {
    const [a, b] = [newWebhookSecret(), newWebhookSecret()];
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const body = JSON.stringify({ type: 'task.completed', data: { taskId: 't1' } });
    const headers = signWebhook([a, b], 'msg_1', new Date(), body);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(a).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(new Webhook(b).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(() => new Webhook(newWebhookSecret()).verify(body, { ...headers })).toThrow();
    expect(() => new Webhook(a).verify(body.replace('t1', 't2'), { ...headers })).toThrow();
  });

  it('the previous secret signs only until its overlap ends', () => {
    const now = new Date('2026-01-02T00:00:00Z');
    const e = { secret: 'new', previousSecret: 'old', previousSecretExpiresAt: new Date('2026-01-02T01:00:00Z') };
    expect(activeSecrets(e, now)).toEqual(['new', 'old']);
    expect(activeSecrets(e, new Date('2026-01-02T02:00:00Z'))).toEqual(['new']);
  });
});

describe('retry schedule', () => {
  it('backs off exponentially to the cap and gives up after about a day with the defaults', () => {
    const s = { baseMs: 30_000, maxDelayMs: 4 * 3_600_000, windowMs: 24 * 3_600_000 };
    const mid = () => 0.5;
    expect([1, 2, 3, 4].map((n) => nextRetryDelayMs(n, s, mid))).toEqual([30_000, 60_000, 120_000, 240_000]);
    expect(nextRetryDelayMs(20, s, mid)).toBeNull();
    const n = retryCount(s);
    let total = 0;
    for (let i = 1; i <= n; i++) total += nextRetryDelayMs(i, s, mid)!;
    expect(total / 3_600_000).toBeGreaterThan(20);
    expect(total / 3_600_000).toBeLessThanOrEqual(24);
  });
});

describe('delivery target policy', () => {
  let server: http.Server;
  let port: number;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/redirect') res.writeHead(307, { Location: 'http://169.254.169.254/latest/meta-data' }).end();
      else res.writeHead(200).end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('refuses loopback, private and http targets unless private URLs are allowed (development only)', async () => {
    for (const url of [`http://127.0.0.1:${port}/`, 'https://10.0.0.5/hook', 'https://[::1]/hook', 'https://169.254.169.254/']) {
      const r = await sendWebhook(url, '{}', {}, { allowPrivate: false, timeoutMs: 2_000 });
      expect(r).toMatchObject({ ok: false, statusCode: null, error: expect.stringMatching(/^refused/) });
    }
    // A public name that resolves to a private address is refused too (checked on the resolved address).
    const rebound = await sendWebhook('https://hooks.example.com/x', '{}', {}, { allowPrivate: false, timeoutMs: 2_000, resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
    expect(rebound.error).toMatch(/^refused/);
    const allowed = await sendWebhook(`http://127.0.0.1:${port}/`, '{}', {}, { allowPrivate: true, timeoutMs: 2_000 });
    expect(allowed).toMatchObject({ ok: true, statusCode: 200, error: null });
  });

  it('does not follow redirects: a 3xx is a failed attempt', async () => {
    const r = await sendWebhook(`http://127.0.0.1:${port}/redirect`, '{}', {}, { allowPrivate: true, timeoutMs: 2_000 });
    expect(r).toMatchObject({ ok: false, statusCode: 307, error: 'redirect 307 not followed' });
  });

  it('gives up on a receiver that does not answer within the timeout', async () => {
    const slow = http.createServer(() => undefined);
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    const r = await sendWebhook(`http://127.0.0.1:${(slow.address() as AddressInfo).port}/`, '{}', {}, { allowPrivate: true, timeoutMs: 300 });
    expect(r).toMatchObject({ ok: false, statusCode: null, error: 'timeout after 300 ms' });
    slow.closeAllConnections();
    await new Promise<void>((r2) => slow.close(() => r2()));
  });
});
