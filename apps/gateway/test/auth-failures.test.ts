// Failed authentication is throttled per client address without taking down the other clients of
// that address: once an address is over AUTH_FAILURES_PER_MINUTE, its unknown credentials get 429
// with no database lookup, while keys this gateway knows to be valid, the admin token and the
// metrics token are still served. TRUST_PROXY decides which address a request comes from.
import request from 'supertest';
import { loadConfig } from '@mediagen/config';
import { startHarness, Harness } from './harness';
import { hashApiKey } from '../src/services/api-keys';

jest.setTimeout(60_000);

const METRICS = 'metrics-token-0123456789';

describe('a blocked address', () => {
  let h: Harness;
  /** A key used once before the address was blocked, and not since. */
  let late: { auth: { Authorization: string } };
  beforeAll(async () => {
    h = await startHarness('auth_failures', { AUTH_FAILURES_PER_MINUTE: '10', METRICS_TOKEN: METRICS });
  });
  afterAll(() => h.close());

  it('serves valid credentials and refuses unknown ones without a lookup', async () => {
    const acc = await h.newAccount();
    const other = await h.newAccount();
    // Both keys in use by clients behind this address before the guessing starts.
    expect((await request(h.app).get('/api/balance').set(acc.auth)).status).toBe(200);
    expect((await request(h.app).get('/api/balance').set(other.auth)).status).toBe(200);
    late = await h.newAccount();
    expect((await request(h.app).get('/api/balance').set(late.auth)).status).toBe(200);

    const guesses: number[] = [];
    for (let i = 0; i < 14; i++) guesses.push((await request(h.app).get('/api/balance').set('Authorization', `Bearer mg_guess_${String(i).padStart(20, '0')}`)).status);
    expect(guesses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(guesses.slice(11)).toEqual([429, 429, 429]);

    const lookups = jest.spyOn(h.deps.db.apiKey, 'findUnique');
    // The other clients of the address: 50 requests with their valid keys, all served.
    const served: number[] = [];
    for (let i = 0; i < 25; i++) {
      served.push((await request(h.app).get('/api/balance').set(acc.auth)).status);
      served.push((await request(h.app).get('/api/balance').set(other.auth)).status);
    }
    expect(served.filter((s) => s === 200)).toHaveLength(50);
    expect((await request(h.app).get('/admin/accounts/' + acc.id).set(h.admin())).status).toBe(200);
    expect((await request(h.app).get('/metrics').set('Authorization', `Bearer ${METRICS}`)).status).toBe(200);

    // Unknown credentials of the blocked address: 429 from memory, no lookup.
    const bogus = await request(h.app).get('/api/balance').set('Authorization', 'Bearer mg_bogus_key_000000000000');
    expect(bogus.status).toBe(429);
    expect(bogus.headers['retry-after']).toMatch(/^\d+$/);
    expect(bogus.body).toEqual(expect.objectContaining({ code: 'rate_limited' }));
    expect((await request(h.app).get('/admin/accounts/x').set('Authorization', 'Bearer wrong-admin-token-000')).status).toBe(429);
    expect((await request(h.app).get('/metrics').set('Authorization', 'Bearer wrong-metrics-token-00')).status).toBe(429);
    const hashesLookedUp = new Set(lookups.mock.calls.map(([args]) => JSON.stringify((args as { where?: unknown }).where)));
    // Only the two valid keys were ever looked up again (cache refreshes), never a guess.
    expect(hashesLookedUp.size).toBeLessThanOrEqual(2);
    expect([...hashesLookedUp].join()).not.toContain(hashApiKey('mg_bogus_key_000000000000'));
    lookups.mockRestore();
  });

  it('a key found valid earlier is looked up again after its cache entry expired, and served', async () => {
    // Its cache entry lasts 5 s; let it lapse, then come back from the blocked address.
    const now = Date.now();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(now + 6_000);
    try {
      expect((await request(h.app).get('/api/balance').set('Authorization', 'Bearer mg_bogus_key_222222222222')).status).toBe(429);
      const lookups = jest.spyOn(h.deps.db.apiKey, 'findUnique');
      expect((await request(h.app).get('/api/balance').set(late.auth)).status).toBe(200);
      expect(lookups).toHaveBeenCalledTimes(1);
      lookups.mockRestore();
    } finally {
      clock.mockRestore();
    }
  });
});

describe('TRUST_PROXY', () => {
  it('is off by default, a hop count, or a list of addresses; "true" and junk are refused', () => {
    const base = { NODE_ENV: 'test' };
    expect(loadConfig(base).TRUST_PROXY).toBe(false);
    expect(loadConfig({ ...base, TRUST_PROXY: '1' }).TRUST_PROXY).toBe(1);
    expect(loadConfig({ ...base, TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,loopback,fd00::/8' }).TRUST_PROXY).toEqual(['10.0.0.0/8', '127.0.0.1', 'loopback', 'fd00::/8']);
    expect(() => loadConfig({ ...base, TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY/);
    expect(() => loadConfig({ ...base, TRUST_PROXY: '10.0.0.0/40' })).toThrow(/TRUST_PROXY/);
  });

  const failFrom = async (h: Harness, xff: string, n: number) => {
    const out: number[] = [];
    for (let i = 0; i < n; i++)
      out.push((await request(h.app).get('/admin/accounts/x').set('X-Forwarded-For', xff).set('Authorization', `Bearer wrong-token-${i}-0000000`)).status);
    return out;
  };

  it('behind a trusted proxy the client address is the forwarded one', async () => {
    const h = await startHarness('auth_proxy', { AUTH_FAILURES_PER_MINUTE: '5', TRUST_PROXY: 'loopback' });
    try {
      expect((await failFrom(h, '203.0.113.7', 7)).slice(5)).toEqual([429, 429]);
      // Another client behind the same proxy is not blocked by the first one's failures.
      expect(await failFrom(h, '203.0.113.8', 1)).toEqual([401]);
    } finally {
      await h.close();
    }
  });

  it('off, a forwarded address is ignored: a spoofed X-Forwarded-For does not escape the block', async () => {
    const h = await startHarness('auth_noproxy', { AUTH_FAILURES_PER_MINUTE: '5' });
    try {
      expect((await failFrom(h, '203.0.113.7', 7)).slice(5)).toEqual([429, 429]);
      expect(await failFrom(h, '203.0.113.9', 1)).toEqual([429]);
    } finally {
      await h.close();
    }
  });
});
