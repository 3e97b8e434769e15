// The gateway's HTTP layer against hostile clients, on the real Postgres and Redis:
// each block names the numbered point it proves.
import request from 'supertest';
import { gzipSync } from 'node:zlib';
import { brotliCompressSync } from 'node:zlib';
import { loadConfig } from '@mediagen/config';
import { signedFileUrl } from '@mediagen/storage';
import { startHarness, Harness } from './harness';
import { createApiKeyAuth } from '../src/middleware/auth';
import { hashApiKey, DEV_API_KEY, DEV_API_KEY_HASH } from '../src/services/api-keys';
import { revokeDevelopmentKey } from '../src/services/dev-key';

jest.setTimeout(30_000);

let h: Harness;
beforeAll(async () => {
  h = await startHarness('hostile_http', { AUTH_FAILURES_PER_MINUTE: '20' });
});
afterAll(() => h.close());

const errorBody = (b: unknown) => expect(b).toEqual(expect.objectContaining({ error: expect.any(String), code: expect.any(String) }));

describe('10: corrupt compressed bodies', () => {
  it('gzip and br garbage answer 4xx with the error body, never 500', async () => {
    const acc = await h.newAccount();
    for (const enc of ['gzip', 'br', 'deflate']) {
      const res = await request(h.app).post('/api/image/generate').set(acc.auth).set('Content-Type', 'application/json')
        .set('Content-Encoding', enc).send(Buffer.from('this is not compressed at all'));
      expect(res.status).toBe(415);
      errorBody(res.body);
    }
  });
  it('2: a decompression bomb is refused before a byte is inflated', async () => {
    const acc = await h.newAccount();
    const before = process.memoryUsage().heapUsed;
    const bomb = gzipSync(Buffer.alloc(30 * 1024 * 1024, 0x20));
    const res = await request(h.app).post('/api/video/generate').set(acc.auth).set('Content-Type', 'application/json').set('Content-Encoding', 'gzip').send(bomb);
    expect(res.status).toBe(415);
    expect(res.body.code).toBe('unsupported_media_type');
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(20 * 1024 * 1024);
    const br = await request(h.app).post('/api/video/generate').set(acc.auth).set('Content-Type', 'application/json').set('Content-Encoding', 'br').send(brotliCompressSync('{}'));
    expect(br.status).toBe(415);
  });
  it('2: a prompt of megabytes is refused by length before any per-character work', async () => {
    const acc = await h.newAccount();
    const res = await request(h.app).post('/api/image/generate').set(acc.auth).send({ model: 'image-b-2.5', prompt: '😀'.repeat(3_000_000) });
    expect(res.status).toBe(400);
    expect(res.body.details?.[0]?.path).toBe('prompt');
  });
});

describe('15: bad percent-encoding and NUL', () => {
  it('answers 400/404 with the error body', async () => {
    const acc = await h.newAccount();
    for (const [path, auth] of [['/files/%ZZ', false], ['/api/video/tasks/%E0%A4%A', true], ['/api/image/tasks/%00', true], ['/admin/tasks/%00', 'admin'], ['/api/image/tasks/a%00b', true]] as const) {
      let r = request(h.app).get(path);
      if (auth === true) r = r.set(acc.auth);
      if (auth === 'admin') r = r.set(h.admin());
      const res = await r;
      expect([400, 404]).toContain(res.status);
      errorBody(res.body);
    }
  });
  it('a NUL inside a JSON body is a 400, not a database error', async () => {
    const acc = await h.newAccount();
    const res = await request(h.app).post('/api/image/generate').set(acc.auth).set('Content-Type', 'application/json')
      .send('{"model":"image-b-2.5","prompt":"a\\u0000b","client_request_id":"x\\u0000"}');
    expect(res.status).toBe(400);
    errorBody(res.body);
  });
});

describe('18: X-Request-Id', () => {
  it('echoes a short plain id, replaces a long or odd one', async () => {
    expect((await request(h.app).get('/healthz').set('X-Request-Id', 'abc-123')).headers['x-request-id']).toBe('abc-123');
    const long = await request(h.app).get('/healthz').set('X-Request-Id', 'x'.repeat(5000));
    expect(long.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const odd = await request(h.app).get('/healthz').set('X-Request-Id', 'a b"c{}');
    expect(odd.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('12: security headers and /docs', () => {
  it('nosniff on JSON, frame protection, no HSTS outside production', async () => {
    const res = await request(h.app).get('/healthz');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.headers['strict-transport-security']).toBeUndefined();
  });
  it('/docs is our page with a CSP; the stock index, petstore and oauth2-redirect are gone', async () => {
    const page = await request(h.app).get('/docs/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('reference.js');
    expect(page.text).not.toMatch(/petstore/i);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect((await request(h.app).get('/docs')).status).toBe(301);
    expect((await request(h.app).get('/docs/swagger-ui-bundle.js')).status).toBe(200);
    for (const stray of ['/docs/index.html', '/docs/oauth2-redirect.html', '/docs/swagger-initializer.js', '/docs/oauth2-redirect.js', '/docs/../package.json']) {
      const res = await request(h.app).get(stray);
      expect(res.status).toBe(404);
    }
  });
  it('the admin answer revealing a new key is no-store', async () => {
    const acc = await request(h.app).post('/admin/accounts').set(h.admin()).send({ name: 'n' });
    const key = await request(h.app).post(`/admin/accounts/${acc.body.id}/api-keys`).set(h.admin());
    expect(key.status).toBe(201);
    expect(key.headers['cache-control']).toBe('no-store');
  });
  it('HSTS is sent in production', async () => {
    const { securityHeaders } = await import('../src/middleware/security-headers');
    const express = (await import('express')).default;
    const app = express().use(securityHeaders({ NODE_ENV: 'production' })).get('/', (_q, r) => r.json({}));
    expect((await request(app).get('/')).headers['strict-transport-security']).toMatch(/max-age=31536000/);
  });
});

describe('11: rate limits per account and per address', () => {
  it('two keys of one account share the account limit', async () => {
    const acc = await h.newAccount({ rateLimitPerMinute: 5 });
    const second = await request(h.app).post(`/admin/accounts/${acc.id}/api-keys`).set(h.admin());
    const auth2 = { Authorization: `Bearer ${second.body.key}` };
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await request(h.app).get('/api/balance').set(acc.auth)).status);
    for (let i = 0; i < 4; i++) statuses.push((await request(h.app).get('/api/balance').set(auth2)).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(3);
  });
  it('/files is limited per address', async () => {
    const hf = await startHarness('hostile_files', { FILES_RATE_LIMIT_PER_MINUTE: '50' });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 60; i++) statuses.push((await request(hf.app).get('/files/results/none/0.png')).status);
      expect(statuses.filter((s) => s === 404)).toHaveLength(50);
      expect(statuses.filter((s) => s === 429)).toHaveLength(10);
    } finally {
      await hf.close();
    }
  });
});

describe('5 and 11: failed authentication', () => {
  it('wrong admin tokens and bogus keys get 429 past the per-address limit, before any lookup; the right token is served', async () => {
    const h2 = await startHarness('hostile_auth', { AUTH_FAILURES_PER_MINUTE: '10' });
    try {
      const lookups = jest.spyOn(h2.deps.db.apiKey, 'findUnique');
      const admin: number[] = [];
      for (let i = 0; i < 15; i++) admin.push((await request(h2.app).get('/admin/accounts/x').set('Authorization', `Bearer wrong-token-${i}`)).status);
      expect(admin.slice(0, 10).every((s) => s === 401)).toBe(true);
      expect(admin.slice(11)).toEqual([429, 429, 429, 429]);
      // The address is blocked now for unknown credentials; the right token is still served
      // (failures are throttled, not the clients behind the address: auth-failures.test.ts).
      const right = await request(h2.app).get('/admin/accounts/x').set(h2.admin());
      expect(right.status).toBe(404);
      const bogus = await request(h2.app).get('/api/balance').set('Authorization', 'Bearer mg_bogus_key_000000000000');
      expect(bogus.status).toBe(429);
      expect(lookups).not.toHaveBeenCalled();
    } finally {
      await h2.close();
    }
  });
  it('a repeated bogus key is looked up once (negative cache)', async () => {
    const h3 = await startHarness('hostile_neg', { AUTH_FAILURES_PER_MINUTE: '1000' });
    try {
      const lookups = jest.spyOn(h3.deps.db.apiKey, 'findUnique');
      for (let i = 0; i < 5; i++) expect((await request(h3.app).get('/api/balance').set('Authorization', 'Bearer mg_bogus_key_111111111111')).status).toBe(401);
      expect(lookups).toHaveBeenCalledTimes(1);
    } finally {
      await h3.close();
    }
  });
});

describe('5: /readyz', () => {
  it('is terse and shares one check between concurrent probes', async () => {
    const realQuery = h.deps.db.$queryRaw.bind(h.deps.db);
    // A slow database: every probe that arrives meanwhile must wait for the one check in flight.
    const q = jest.spyOn(h.deps.db, '$queryRaw').mockImplementation(((...a: never[]) =>
      new Promise((r) => setTimeout(r, 300)).then(() => (realQuery as (...x: never[]) => unknown)(...a))) as never);
    const ping = jest.spyOn(h.deps.redis, 'ping');
    const server = h.listen(0);
    const all = await Promise.all(Array.from({ length: 20 }, () => request(server).get('/readyz')));
    server.close();
    expect(all[0].body).toEqual({ status: 'ready' });
    expect(all.every((r) => r.status === 200)).toBe(true);
    // 20 probes, a handful of checks (one per 300 ms window in which probes arrive).
    expect(q.mock.calls.length).toBeLessThanOrEqual(3);
    expect(ping.mock.calls.length).toBe(q.mock.calls.length);
    q.mockRestore();
    ping.mockRestore();
  });
});

describe('16: revocation', () => {
  it('a lookup in flight when the key is revoked does not re-cache it', async () => {
    const acc = await h.newAccount();
    const hash = hashApiKey(acc.auth.Authorization.slice(7));
    const fakeEvents = { onKeyRevoked: (fn: (h: string) => void) => (revoke = fn) } as never;
    let revoke: (h: string) => void = () => undefined;
    const auth = createApiKeyAuth({ ...h.deps, events: fakeEvents }).middleware;
    const db = h.deps.db;
    const real = db.apiKey.findUnique.bind(db.apiKey);
    const spy = jest.spyOn(db.apiKey, 'findUnique').mockImplementationOnce((async (args: never) => {
      const row = await real(args);
      // The admin revokes while this lookup's answer is on its way back.
      await db.apiKey.update({ where: { keyHash: hash }, data: { revokedAt: new Date() } });
      revoke(hash);
      return row as never;
    }) as never);
    const run = () => new Promise<unknown>((resolve) => {
      const req = { headers: { authorization: acc.auth.Authorization }, socket: { remoteAddress: '127.0.0.9' } } as never;
      auth(req, {} as never, (err?: unknown) => resolve(err ?? 'ok'));
    });
    expect(await run()).toBe('ok'); // the in-flight lookup itself answers as it found
    const second = await run();
    expect((second as { code?: string }).code).toBe('unauthorized');
    spy.mockRestore();
  });
});

describe('17: development credentials', () => {
  it('with NODE_ENV unset there is no public admin token', () => {
    const cfg = loadConfig({ DATA_DIR: '/tmp/x' });
    expect(cfg.ADMIN_TOKEN).not.toBe('dev-admin-token-change-me');
    expect(cfg.ADMIN_DISABLED).toBe(true);
    expect(loadConfig({ NODE_ENV: 'development' }).ADMIN_TOKEN).toBe('dev-admin-token-change-me');
  });
  it('the development key is revoked in a production database and refused by a production gateway', async () => {
    const acc = await h.newAccount();
    await h.deps.db.apiKey.create({ data: { id: 'key_dev', accountId: acc.id, keyHash: DEV_API_KEY_HASH, prefix: 'mg_dev_lo' } });
    const prodAuth = createApiKeyAuth({ ...h.deps, config: { ...h.deps.config, NODE_ENV: 'production' } }).middleware;
    const err = await new Promise<unknown>((resolve) =>
      prodAuth({ headers: { authorization: `Bearer ${DEV_API_KEY}` }, socket: { remoteAddress: '127.0.0.8' } } as never, {} as never, resolve as never),
    );
    expect((err as { code?: string }).code).toBe('unauthorized');
    expect(await revokeDevelopmentKey(h.deps.db)).toBe(1);
    expect((await h.deps.db.apiKey.findUnique({ where: { id: 'key_dev' } }))?.revokedAt).not.toBeNull();
  });
});

describe('8: private inputs', () => {
  it('inputs need an unexpired signature and are private, no-store; results stay capability URLs', async () => {
    await h.deps.storage.put('inputs/0123456789abcdef0123456789abcdef/0.png', Buffer.from('secret photo'), 'image/png');
    const plain = await request(h.app).get('/files/inputs/0123456789abcdef0123456789abcdef/0.png');
    expect(plain.status).toBe(404);
    const good = new URL(signedFileUrl(h.deps.config, h.deps.config.FILE_SIGNING_SECRET, 'inputs/0123456789abcdef0123456789abcdef/0.png', new Date(Date.now() + 60_000)));
    const ok = await request(h.app).get(good.pathname + good.search);
    expect(ok.status).toBe(200);
    expect(ok.headers['cache-control']).toBe('private, no-store');
    expect(ok.headers['content-security-policy']).toContain('sandbox');
    const old = new URL(signedFileUrl(h.deps.config, h.deps.config.FILE_SIGNING_SECRET, 'inputs/0123456789abcdef0123456789abcdef/0.png', new Date(Date.now() - 1000)));
    expect((await request(h.app).get(old.pathname + old.search)).status).toBe(404);
    const forged = good.search.replace(/sig=[^&]+/, 'sig=AAAA');
    expect((await request(h.app).get(good.pathname + forged)).status).toBe(404);
  });
});
