// What the gateway writes to its log for hostile or sensitive requests: capability URLs and
// callback tokens are redacted from the access line, and a malformed console cookie is treated as
// absent (no 500, no stack). Each request goes through the gateway's listener with a logger writing into memory.
import { Writable } from 'node:stream';
import request from 'supertest';
import { createLogger } from '@mediagen/logging';
import { startHarness, Harness } from './harness';
import { gatewayListener, GatewayListener } from '../src/server';

jest.setTimeout(30_000);

let h: Harness;
let app: GatewayListener;
const lines: Record<string, unknown>[] = [];
beforeAll(async () => {
  h = await startHarness('log_cookie');
  const sink = new Writable({ write: (chunk, _enc, cb) => (lines.push(...String(chunk).trim().split('\n').map((l) => JSON.parse(l))), cb()) });
  app = gatewayListener({ ...h.deps, log: createLogger('info', { app: 'gateway' }, sink) });
});
afterAll(() => h.close());
beforeEach(() => (lines.length = 0));

const accessLine = async (url: string) => {
  for (let i = 0; i < 100 && !lines.some((l) => (l.req as { url?: string } | undefined)?.url !== undefined); i++) await new Promise((r) => setImmediate(r));
  const line = lines.find((l) => (l.req as { url?: string } | undefined)?.url !== undefined);
  if (!line) throw new Error(`no access line for ${url}`);
  return (line.req as { url: string }).url;
};

describe('access log redaction', () => {
  it('sig, token and parameters named like secrets are redacted; the rest of the URL stays', async () => {
    await request(app).get('/files/inputs/abc/0.png?exp=1893456000&sig=c2VjcmV0LXNpZ25hdHVyZQ');
    expect(await accessLine('files')).toBe('/files/inputs/abc/0.png?exp=1893456000&sig=[redacted]');
    lines.length = 0;
    await request(app).post('/hooks/upstream/sim?task=t_1&token=0123456789abcdef0123').send({});
    expect(await accessLine('hooks')).toBe('/hooks/upstream/sim?task=t_1&token=[redacted]');
    lines.length = 0;
    await request(app).get('/console/login?next=%2Fconsole&api_key=k1&client_secret=s2&Password=p3&X-Amz-Signature=s4&access_token=t5');
    const url = await accessLine('console');
    expect(url).toBe('/console/login?next=%2Fconsole&api_key=[redacted]&client_secret=[redacted]&Password=[redacted]&X-Amz-Signature=[redacted]&access_token=[redacted]');
    for (const secret of ['k1', 's2', 'p3', 's4', 't5']) expect(JSON.stringify(lines)).not.toContain(`=${secret}`);
  });
});

describe('a malformed console cookie is treated as absent', () => {
  it.each(['%', '%E0%A4%A', 'a%zz'])('Cookie: mg_console=%s on /console/* and /admin/queues/ signs nobody in and fails nothing', async (bad) => {
    const page = await request(app).get('/console/accounts').set('Cookie', `mg_console=${bad}`);
    expect(page.status).toBe(303);
    expect(page.headers.location).toMatch(/^\/console\/login\?next=/);
    const login = await request(app).get('/console/login').set('Cookie', `mg_console=${bad}; mg_console_login=${bad}`);
    expect(login.status).toBe(200);
    const post = await request(app).post('/console/logout').set('Cookie', `mg_console=${bad}`).type('form').send({ _csrf: 'x' });
    expect(post.status).toBe(401);
    const board = await request(app).get('/admin/queues/').set('Cookie', `mg_console=${bad}`).set('Accept', 'text/html');
    expect(board.status).toBe(303);
    const api = await request(app).get('/admin/queues/api/queues').set('Cookie', `mg_console=${bad}`).set('Accept', 'application/json');
    expect(api.status).toBe(401);
    expect(api.body).toEqual(expect.objectContaining({ code: 'unauthorized' }));
    expect(lines.filter((l) => (l.level as number) >= 50 || l.err !== undefined || /stack|URIError/.test(JSON.stringify(l)))).toEqual([]);
  });
});
