// The console's side of data retention (docs/data-retention.md): an admin sets an account's result
// retention on its page (re-stamping its unexpired results, as the admin API does), and the
// Storage page shows the files and bytes stored and deleted per day.
import request from 'supertest';
import { completeTask, markResultsDeleted, newId, sql, upsertOperator } from '@mediagen/db';
import { hashPassword } from '@mediagen/console';
import { startHarness, Harness } from './harness';

const PASSWORD = 'retention operator 42';
let h: Harness;
let cookie: string;
beforeAll(async () => {
  h = await startHarness('console_retention', { INSTANT_WAIT_MS: '0', RESULT_RETENTION_SECONDS: '3600' });
  await upsertOperator(h.deps.db, { id: newId('op'), name: 'rita', role: 'admin', passwordHash: await hashPassword(PASSWORD) });
  const form = await request(h.app).get('/console/login');
  const pre = String(form.headers['set-cookie'][0]).split(';')[0];
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)![1];
  const res = await request(h.app).post('/console/login').set('Cookie', pre).type('form').send({ _csrf: csrf, name: 'rita', password: PASSWORD, next: '/console/accounts' });
  expect(res.status).toBe(303);
  cookie = (res.headers['set-cookie'] as unknown as string[]).map((c) => c.split(';')[0]).join('; ');
});
afterAll(() => h.close());

async function completedTask(auth: { Authorization: string }, bytes: number): Promise<string> {
  const res = await request(h.app).post('/api/image/generate').set(auth).send({ model: 'image-b-2.5', prompt: 'p' });
  expect(res.status).toBe(200);
  expect(await completeTask(h.deps.db, res.body.taskId, ['https://h/files/results/x/0.png'], { retentionSeconds: 3600, resultBytes: bytes })).toBe(true);
  return res.body.taskId;
}
const expiry = async (id: string) => (await sql<{ e: Date | null; f: Date }>(h.deps.db, `SELECT "expiresAt" AS e, "finishedAt" AS f FROM "Task" WHERE "id" = $1`, [id])).rows[0];

it('sets an account\'s result retention from its page; its unexpired results follow', async () => {
  const a = await h.newAccount();
  const t = await completedTask(a.auth, 10);
  const page = await request(h.app).get(`/console/accounts/${a.id}`).set('Cookie', cookie);
  expect(page.status).toBe(200);
  expect(page.text).toContain('name="resultRetentionSeconds"');
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1];
  const post = (v: string) =>
    request(h.app).post(`/console/accounts/${a.id}/limits`).set('Cookie', cookie).type('form').send({ _csrf: csrf, maxConcurrentTasks: '20', rateLimitPerMinute: '', resultRetentionSeconds: v });
  expect((await post('-5')).status).toBe(422); // the console's form error
  expect((await post('120')).status).toBe(303);
  const e = await expiry(t);
  expect(e.e!.getTime() - e.f.getTime()).toBe(120_000);
  expect((await request(h.app).get(`/admin/accounts/${a.id}`).set(h.admin())).body.resultRetentionSeconds).toBe(120);
  expect((await post('')).status).toBe(303); // back to the service default
  const d = await expiry(t);
  expect(d.e!.getTime() - d.f.getTime()).toBe(3_600_000);
});

it('the Storage page shows files and bytes stored and deleted today', async () => {
  const a = await h.newAccount();
  const t = await completedTask(a.auth, 2_500_000);
  await sql(h.deps.db, `UPDATE "Task" SET "expiresAt" = now() - interval '1 second' WHERE "id" = $1`, [t]);
  expect(await markResultsDeleted(h.deps.db, [t])).toMatchObject({ files: 1, bytes: 2_500_000 });
  const res = await request(h.app).get('/console/storage').set('Cookie', cookie);
  expect(res.status).toBe(200);
  const today = new Date().toISOString().slice(0, 10);
  const row = new RegExp(`<td>${today}</td><td class="num">(\\d+)</td><td class="num" title="(\\d+)">[^<]*</td><td class="num">(\\d+)</td><td class="num" title="(\\d+)">`).exec(res.text);
  expect(row).not.toBeNull();
  const [, filesStored, bytesStored, filesDeleted, bytesDeleted] = row!.map(Number);
  expect(filesStored).toBeGreaterThanOrEqual(2);
  expect(bytesStored).toBeGreaterThanOrEqual(2_500_010);
  expect(filesDeleted).toBe(1);
  expect(bytesDeleted).toBe(2_500_000);
  expect(res.text).toContain('Result files are kept 0.04 days');
});
