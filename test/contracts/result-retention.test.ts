// Result retention end to end between the gateway (poll, listing, /files, admin API) and the
// worker's retention job, on both storage drivers (docs/data-retention.md): a completed task's poll
// and listing carry expiresAt; its file is readable one second before expiresAt and gone after,
// the URL then answering 410 result_expired naming the expiry while the poll stays 200 completed
// with its resultUrls; a run that crashed between deleting files and marking them is finished by
// the next run, counting each file once; nothing not yet expired is touched; an account's
// retention change applies to its results not yet expired.
import request from 'supertest';
import { completeTask, sql, storageDays } from '@mediagen/db';
import { createWorkerMetrics } from '@mediagen/metrics';
import { publicFileUrl, resultKey, StorageDriver } from '@mediagen/storage';
import { LocalS3, startLocalS3 } from '@mediagen/storage/testing';
import { startHarness, Harness } from '../../apps/gateway/test/harness';
import { deleteExpiredResults } from '../../apps/worker/src/result-retention';

const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a0f1a3e10000000049454e44ae426082', 'hex');

describe.each(['fs', 's3'] as const)('result retention on the %s driver', (driver) => {
  let h: Harness;
  let s3: LocalS3 | undefined;
  let account: { id: string; auth: { Authorization: string } };

  beforeAll(async () => {
    const env: Record<string, string> = { INSTANT_WAIT_MS: '0', POLL_CACHE_MS: '0', RESULT_RETENTION_SECONDS: '3600', RETENTION_BATCH: '2' };
    if (driver === 's3') {
      s3 = await startLocalS3(`mediagen-retention`);
      const st = s3.settings;
      Object.assign(env, { STORAGE_DRIVER: 's3', S3_BUCKET: st.S3_BUCKET, S3_REGION: st.S3_REGION, S3_ENDPOINT: st.S3_ENDPOINT, S3_FORCE_PATH_STYLE: 'true', S3_ACCESS_KEY_ID: st.S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY: st.S3_SECRET_ACCESS_KEY });
    }
    h = await startHarness(`retention-${driver}`, env);
    account = await h.newAccount();
  });
  afterAll(async () => {
    await h.assertLedgerInvariant();
    await h.close();
    await s3?.stop();
  });

  const metrics = createWorkerMetrics({ processMetrics: false });
  const job = (storage: StorageDriver = h.deps.storage) => deleteExpiredResults({ db: h.deps.db, log: h.deps.log, config: h.deps.config, storage, metrics });
  const deletedMetric = async () => (await metrics.storage.filesDeleted.get()).values[0]?.value ?? 0;

  /** A submitted task completed with one stored result file, as the worker leaves it. */
  async function completed(): Promise<{ id: string; key: string; path: string }> {
    const res = await request(h.app).post('/api/image/generate').set(account.auth).send({ model: 'image-b-2.5', prompt: 'p' });
    expect(res.status).toBe(200);
    const id = res.body.taskId as string;
    const key = resultKey(id, 0, 'image/png');
    await h.deps.storage.put(key, png, 'image/png');
    expect(await completeTask(h.deps.db, id, [publicFileUrl(h.deps.config, key)], { retentionSeconds: h.deps.config.RESULT_RETENTION_SECONDS, resultBytes: png.length })).toBe(true);
    return { id, key, path: `/files/${key}` };
  }
  const setExpiry = (id: string, expr: string) => sql(h.deps.db, `UPDATE "Task" SET "expiresAt" = ${expr} WHERE "id" = $1`, [id]);
  const expiryOf = async (id: string) => (await sql<{ e: Date | null }>(h.deps.db, `SELECT "expiresAt" AS e FROM "Task" WHERE "id" = $1`, [id])).rows[0].e;
  const dbNow = async () => (await sql<{ n: Date }>(h.deps.db, 'SELECT clock_timestamp() AS n')).rows[0].n;
  const deletedToday = async () => (await storageDays(h.deps.db, 1))[0]?.filesDeleted ?? 0;

  it('poll and listing carry expiresAt; the file is readable one second before it and 410 after, the poll still 200', async () => {
    const t = await completed();
    const poll = await request(h.app).get(`/api/image/tasks/${t.id}`).set(account.auth);
    expect(poll.status).toBe(200);
    const stamped = await expiryOf(t.id);
    expect(poll.body).toMatchObject({ status: 'completed', expiresAt: stamped!.toISOString() });
    const list = await request(h.app).get('/api/tasks').set(account.auth);
    expect(list.body.data.find((r: { taskId: string }) => r.taskId === t.id)).toMatchObject({ expiresAt: stamped!.toISOString() });

    // One second before its expiry: the job leaves it, the URL serves it.
    await setExpiry(t.id, `clock_timestamp() + interval '1 second'`);
    const expiresAt = (await expiryOf(t.id))!;
    await job();
    expect(await h.deps.storage.stat(t.key)).not.toBeNull();
    const before = await request(h.app).get(t.path);
    expect(before.status).toBe(200);
    expect(Number(/max-age=(\d+)/.exec(before.headers['cache-control'])![1])).toBeLessThanOrEqual(1);

    // Wait on the condition (the database's clock passing the expiry), not a fixed sleep.
    while ((await dbNow()) <= expiresAt) await new Promise((r) => setTimeout(r, 50));
    const deleted = await deletedToday();
    const run = await job();
    expect(run.tasks).toBeGreaterThanOrEqual(1);
    expect(await h.deps.storage.stat(t.key)).toBeNull();
    expect(await deletedToday()).toBe(deleted + run.files);

    const gone = await request(h.app).get(t.path);
    expect(gone.status).toBe(410);
    expect(gone.body).toMatchObject({ code: 'result_expired', expiresAt: expiresAt.toISOString() });
    expect(gone.body.error).toContain(expiresAt.toISOString());
    const after = await request(h.app).get(`/api/image/tasks/${t.id}`).set(account.auth);
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ status: 'completed', resultUrls: [publicFileUrl(h.deps.config, t.key)], expiresAt: expiresAt.toISOString() });
    expect(new Date(after.body.expiresAt).getTime()).toBeLessThan(Date.now() + 1000);
  });

  it('answers 410 past expiresAt even before the job has deleted the file', async () => {
    const t = await completed();
    await setExpiry(t.id, `now() - interval '1 second'`);
    const res = await request(h.app).get(t.path);
    expect(res.status).toBe(410);
    expect(res.body.code).toBe('result_expired');
    expect(await h.deps.storage.stat(t.key)).not.toBeNull();
  });

  it('a run that crashed mid-batch is finished by the next, each file counted once; unexpired results are untouched', async () => {
    const a = await completed();
    const b = await completed();
    const c = await completed();
    const live = await completed();
    for (const t of [a, b, c]) await setExpiry(t.id, `now() - interval '1 second'`);
    await job(); // expired tasks from earlier tests out of the way
    for (const t of [a, b, c]) {
      await sql(h.deps.db, `UPDATE "Task" SET "resultsDeletedAt" = NULL WHERE "id" = $1`, [t.id]);
      await h.deps.storage.put(t.key, png, 'image/png');
    }
    const counted = await deletedToday();
    // The crash: the first batch's files were deleted, the process died before marking them.
    await h.deps.storage.delete(a.key);
    // The next run's storage fails on one file: that task stays for the run after.
    const failing: StorageDriver = Object.assign(Object.create(h.deps.storage) as StorageDriver, {
      delete: (k: string) => (k === c.key ? Promise.reject(new Error('storage down')) : h.deps.storage.delete(k)),
    });
    const first = await job(failing);
    expect(first.files).toBe(2);
    expect(await h.deps.storage.stat(c.key)).not.toBeNull();
    const second = await job();
    expect(second.files).toBe(1);
    expect(await job()).toEqual({ tasks: 0, files: 0, bytes: 0 });
    expect(await deletedToday()).toBe(counted + 3);
    expect(Number(await deletedMetric())).toBe(counted + 3);
    for (const t of [a, b, c]) expect(await h.deps.storage.stat(t.key)).toBeNull();
    expect(await h.deps.storage.stat(live.key)).not.toBeNull();
    expect((await request(h.app).get(live.path)).status).toBe(200);
  });

  it('PATCH /admin/accounts resultRetentionSeconds applies to results not yet expired', async () => {
    const live = await completed();
    const expired = await completed();
    await setExpiry(expired.id, `now() - interval '1 second'`);
    const expiredAt = await expiryOf(expired.id);
    const bad = await request(h.app).patch(`/admin/accounts/${account.id}`).set(h.admin()).send({ resultRetentionSeconds: -1 });
    expect(bad.status).toBe(400);
    const res = await request(h.app).patch(`/admin/accounts/${account.id}`).set(h.admin()).send({ resultRetentionSeconds: 86_400 });
    expect(res.status).toBe(200);
    expect(res.body.resultRetentionSeconds).toBe(86_400);
    const finished = (await sql<{ f: Date }>(h.deps.db, `SELECT "finishedAt" AS f FROM "Task" WHERE "id" = $1`, [live.id])).rows[0].f;
    expect((await expiryOf(live.id))!.getTime()).toBe(finished.getTime() + 86_400_000);
    expect(await expiryOf(expired.id)).toEqual(expiredAt);
    const poll = await request(h.app).get(`/api/image/tasks/${live.id}`).set(account.auth);
    expect(poll.body.expiresAt).toBe(new Date(finished.getTime() + 86_400_000).toISOString());
    // 0: kept forever, no expiresAt in the poll body; a new completion follows the override.
    await request(h.app).patch(`/admin/accounts/${account.id}`).set(h.admin()).send({ resultRetentionSeconds: 0 });
    const forever = await request(h.app).get(`/api/image/tasks/${live.id}`).set(account.auth);
    expect(forever.body.expiresAt).toBeUndefined();
    const next = await completed();
    expect(await expiryOf(next.id)).toBeNull();
    await request(h.app).patch(`/admin/accounts/${account.id}`).set(h.admin()).send({ resultRetentionSeconds: null });
  });
});
