// The worker's side of data retention (docs/data-retention.md), with a real render: the completing
// worker stamps expiresAt (RESULT_RETENTION_SECONDS), records the result's bytes and counts the
// file on the day's StorageDay row and in the stored-files metrics; the scheduled `retention`
// maintenance job deletes the file once expired (the task stays completed with its resultUrls) and
// prunes old operational rows, leaving recent ones, the ledger and the tasks.
import fs from 'node:fs';
import path from 'node:path';
import { newId, sql, storageDays } from '@mediagen/db';
import { JOBS, MAINTENANCE_JOBS } from '@mediagen/queue';
import { maintenanceProcessor } from '../src/maintenance';
import { InProcess, startInProcess } from './in-process';

jest.setTimeout(60_000);

let w: InProcess;
beforeAll(async () => {
  w = await startInProcess(
    (base) => ({ channels: [{ id: 'sim', baseUrl: `${base}/ch/sim`, apiKey: 'k', costOrder: 1, models: { 'video-a-h3': 'm' }, poll: { firstMs: 50, minMs: 50, maxMs: 200 } }] }),
    { RESULT_RETENTION_SECONDS: '600', RETENTION_INTERVAL_MS: '3600000' },
  );
});
afterAll(() => w.stop());

const metric = async (name: 'filesStored' | 'bytesStored' | 'filesDeleted' | 'bytesDeleted') => (await w.app.ctx.metrics.storage[name].get()).values[0]?.value ?? 0;

it('a completed render carries its expiry and size; the retention job deletes its file after expiry only', async () => {
  expect(MAINTENANCE_JOBS).toContain(JOBS.retention);
  const id = await w.submit('a take #sim:delay=50');
  expect(await w.settled(id)).toMatchObject({ status: 'completed' });
  const file = path.join(w.dataDir, 'files', 'results', id, '0.mp4');
  const size = fs.statSync(file).size;
  const t = (await sql<{ expiresAt: Date; finishedAt: Date; resultBytes: string; resultUrls: string[] }>(w.db, `SELECT "expiresAt", "finishedAt", "resultBytes", "resultUrls" FROM "Task" WHERE "id" = $1`, [id])).rows[0];
  expect(t.expiresAt.getTime() - t.finishedAt.getTime()).toBe(600_000);
  expect(Number(t.resultBytes)).toBe(size);
  expect((await storageDays(w.db, 1))[0]).toMatchObject({ filesStored: 1, bytesStored: size, filesDeleted: 0 });
  expect(await metric('filesStored')).toBe(1);
  expect(await metric('bytesStored')).toBe(size);

  const run = maintenanceProcessor(w.app.ctx);
  expect(await run({ name: JOBS.retention, data: {} })).toMatchObject({ results: { tasks: 0, files: 0 } });
  expect(fs.existsSync(file)).toBe(true);

  await sql(w.db, `UPDATE "Task" SET "expiresAt" = now() - interval '1 millisecond' WHERE "id" = $1`, [id]);
  expect(await run({ name: JOBS.retention, data: {} })).toMatchObject({ results: { tasks: 1, files: 1, bytes: size } });
  expect(fs.existsSync(file)).toBe(false);
  expect((await storageDays(w.db, 1))[0]).toMatchObject({ filesDeleted: 1, bytesDeleted: size });
  expect(await metric('filesDeleted')).toBe(1);
  const after = (await sql<{ status: string; resultUrls: string[] }>(w.db, `SELECT "status", "resultUrls" FROM "Task" WHERE "id" = $1`, [id])).rows[0];
  expect(after).toEqual({ status: 'completed', resultUrls: t.resultUrls });
  // Again (another worker, a retry): nothing more is deleted or counted.
  expect(await run({ name: JOBS.retention, data: {} })).toMatchObject({ results: { tasks: 0, files: 0 } });
  expect(await metric('filesDeleted')).toBe(1);
});

it('prunes attempts, idempotency records and finished deliveries past their retention; keeps recent rows, tasks and ledger', async () => {
  const old = await w.submit('an old take #sim:delay=50');
  const fresh = await w.submit('a fresh take #sim:delay=50');
  for (const id of [old, fresh]) await w.settled(id);
  await w.closedAttempts(old);
  await w.closedAttempts(fresh);
  const longAgo = new Date(Date.now() - 400 * 86_400_000).toISOString();
  await sql(w.db, `UPDATE "TaskAttempt" SET "createdAt" = $2 WHERE "taskId" = $1`, [old, longAgo]);
  await w.db.idempotencyRecord.create({ data: { accountId: w.accountId, key: 'old-key', fingerprint: 'f', taskId: old, createdAt: longAgo } });
  await w.db.idempotencyRecord.create({ data: { accountId: w.accountId, key: 'new-key', fingerprint: 'f', taskId: fresh } });
  const ep = await w.db.webhookEndpoint.create({ data: { id: newId('whe'), accountId: w.accountId, url: 'https://e.test', events: ['task.completed'], secret: 's' } });
  await w.db.webhookDelivery.create({ data: { id: newId('whd'), endpointId: ep.id, accountId: w.accountId, taskId: old, target: 'endpoint', url: 'https://e.test', eventType: 'task.completed', body: '{}', status: 'delivered', createdAt: longAgo } });
  const ledgerBefore = await w.db.ledgerEntry.count();

  const out = (await maintenanceProcessor(w.app.ctx)({ name: JOBS.retention, data: {} })) as { rows: Record<string, number> };
  expect(out.rows).toMatchObject({ TaskAttempt: expect.any(Number), IdempotencyRecord: 1, WebhookDelivery: 1 });
  expect(out.rows.TaskAttempt).toBeGreaterThanOrEqual(1);
  expect(await w.db.taskAttempt.count({ where: { taskId: old } })).toBe(0);
  expect(await w.db.taskAttempt.count({ where: { taskId: fresh } })).toBeGreaterThanOrEqual(1);
  expect((await w.db.idempotencyRecord.findMany({ select: { key: true } })).map((r) => r.key)).toEqual(['new-key']);
  expect(await w.db.webhookDelivery.count()).toBe(0);
  expect(await w.db.task.count({ where: { id: { in: [old, fresh] } } })).toBe(2);
  expect(await w.db.ledgerEntry.count()).toBe(ledgerBefore);
  expect((await w.app.ctx.metrics.storage.rowsDeleted.get()).values.find((v) => v.labels.table === 'IdempotencyRecord')?.value).toBe(1);
});
