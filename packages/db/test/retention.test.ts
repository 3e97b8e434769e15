// Data retention in the database (docs/data-retention.md): the completing statement stamps the
// result expiry from the account's retention or the service's (0: none); a retention change
// re-stamps results not yet expired and leaves expired ones alone; the scan finds only expired,
// undeleted results; marking them deleted counts the files once on the day's row; and the
// operational-table prunes delete only old rows, at most one batch per statement.
import { createDb, Db } from '../src/client';
import { newId } from '../src/ids';
import { createTestSchema } from '../src/test-schema';
import { completeTaskRow } from '../src/settlement';
import { sql } from '../src/sql';
import {
  deleteAdminIdempotencyRecordsBefore,
  deleteAttemptsBefore,
  deleteIdempotencyRecordsBefore,
  deleteWebhookDeliveriesBefore,
  expiredResults,
  markResultsDeleted,
  setAccountResultRetention,
  storageDays,
} from '../src/retention';

let db: Db;
let drop: () => Promise<void>;

beforeAll(async () => {
  const schema = await createTestSchema('retention');
  drop = schema.drop;
  db = createDb(schema.url, { poolSize: 4 });
});
afterAll(async () => {
  await db.$disconnect();
  await drop();
});

async function account(): Promise<string> {
  const id = newId('acc');
  await db.account.create({ data: { id, name: 'retention' } });
  return id;
}

async function task(accountId: string, createdAt = new Date()): Promise<string> {
  const taskId = newId();
  await db.task.create({
    data: { id: taskId, accountId, type: 'image', model: 'image-c-2.1', params: {}, costCents: 3, costMicros: 30_000n, deadlineAt: new Date(Date.now() + 60_000), createdAt },
  });
  return taskId;
}

const row = async (id: string) => (await sql<{ expiresAt: Date | null; finishedAt: Date; resultsDeletedAt: Date | null }>(db, `SELECT "expiresAt", "finishedAt", "resultsDeletedAt" FROM "Task" WHERE "id" = $1`, [id])).rows[0];
const setExpiry = (id: string, expr: string) => sql(db, `UPDATE "Task" SET "expiresAt" = ${expr} WHERE "id" = $1`, [id]);

it('stamps expiresAt at completion: the service default, the account override, 0 keeps forever', async () => {
  const a = await account();
  const byDefault = await task(a);
  const won = await completeTaskRow(db, byDefault, ['https://x/files/results/a/0.png'], { retentionSeconds: 3600, resultBytes: 10 });
  const r1 = await row(byDefault);
  expect(r1.expiresAt!.getTime() - r1.finishedAt.getTime()).toBe(3_600_000);
  expect(won!.expiresAt!.getTime()).toBe(r1.expiresAt!.getTime());

  const forever = await task(a);
  await completeTaskRow(db, forever, ['u'], { retentionSeconds: 0 });
  expect((await row(forever)).expiresAt).toBeNull();

  const b = await account();
  await db.account.update({ where: { id: b }, data: { resultRetentionSeconds: 60 } });
  const overridden = await task(b);
  await completeTaskRow(db, overridden, ['u'], { retentionSeconds: 3600 });
  const r3 = await row(overridden);
  expect(r3.expiresAt!.getTime() - r3.finishedAt.getTime()).toBe(60_000);

  // An account kept forever while the service expires results.
  const c = await account();
  await db.account.update({ where: { id: c }, data: { resultRetentionSeconds: 0 } });
  const kept = await task(c);
  await completeTaskRow(db, kept, ['u'], { retentionSeconds: 3600 });
  expect((await row(kept)).expiresAt).toBeNull();
});

it('a retention change re-stamps the results not yet expired, never an expired one', async () => {
  const a = await account();
  const live = await task(a);
  const expired = await task(a);
  const forever = await task(a);
  await completeTaskRow(db, live, ['u'], { retentionSeconds: 3600 });
  await completeTaskRow(db, expired, ['u'], { retentionSeconds: 3600 });
  await completeTaskRow(db, forever, ['u'], { retentionSeconds: 0 });
  await setExpiry(expired, `now() - interval '1 second'`);
  const expiredAt = (await row(expired)).expiresAt;

  expect(await setAccountResultRetention(db, a, 86_400, 3600)).toBe(2);
  const l = await row(live);
  expect(l.expiresAt!.getTime() - l.finishedAt.getTime()).toBe(86_400_000);
  const f = await row(forever);
  expect(f.expiresAt!.getTime() - f.finishedAt.getTime()).toBe(86_400_000);
  expect((await row(expired)).expiresAt).toEqual(expiredAt);
  // Again: nothing changes. Back to forever: the live ones lose their expiry.
  expect(await setAccountResultRetention(db, a, 86_400, 3600)).toBe(0);
  expect(await setAccountResultRetention(db, a, 0, 3600)).toBe(2);
  expect((await row(live)).expiresAt).toBeNull();
  expect((await row(expired)).expiresAt).toEqual(expiredAt);
  // null: the service default applies again.
  await setAccountResultRetention(db, a, null, 7200);
  const d = await row(live);
  expect(d.expiresAt!.getTime() - d.finishedAt.getTime()).toBe(7_200_000);
  expect((await db.account.findUnique({ where: { id: a } }))!.resultRetentionSeconds).toBeNull();
});

it('finds expired results only, marks and counts each once on the day row', async () => {
  const a = await account();
  const due = await task(a);
  const soon = await task(a);
  await completeTaskRow(db, due, ['https://h/files/results/x/0.png', 'https://h/files/results/x/1.png'], { retentionSeconds: 3600, resultBytes: 700 });
  await completeTaskRow(db, soon, ['u'], { retentionSeconds: 3600, resultBytes: 5 });
  await setExpiry(due, `now() - interval '1 millisecond'`);
  await setExpiry(soon, `now() + interval '1 second'`);

  const found = (await expiredResults(db, 100)).map((r) => r.id);
  expect(found).toContain(due);
  expect(found).not.toContain(soon);

  const before = (await storageDays(db, 1))[0];
  // The not-yet-expired one is refused by the mark too (never early, even if asked).
  expect(await markResultsDeleted(db, [due, soon])).toEqual({ tasks: 1, files: 2, bytes: 700 });
  expect(await markResultsDeleted(db, [due])).toEqual({ tasks: 0, files: 0, bytes: 0 });
  const after = (await storageDays(db, 1))[0];
  expect(after.filesDeleted - before.filesDeleted).toBe(2);
  expect(after.bytesDeleted - before.bytesDeleted).toBe(700);
  expect(after.filesStored).toBeGreaterThanOrEqual(3);
  expect((await row(due)).resultsDeletedAt).not.toBeNull();
  expect((await expiredResults(db, 100)).map((r) => r.id)).not.toContain(due);
});

it('prunes old attempts, finished deliveries with their attempts and idempotency records, one batch per statement', async () => {
  const a = await account();
  const old = new Date(Date.now() - 100 * 86_400_000);
  const cutoff = new Date(Date.now() - 90 * 86_400_000);
  const oldTasks = [await task(a, old), await task(a, old), await task(a, old)];
  const fresh = await task(a);
  for (const t of [...oldTasks, fresh]) await completeTaskRow(db, t, ['u'], { retentionSeconds: 0 });
  for (const t of oldTasks) await db.taskAttempt.create({ data: { id: newId('att'), taskId: t, attemptNo: 1, channelId: 'c', createdAt: old } });
  await db.taskAttempt.create({ data: { id: newId('att'), taskId: fresh, attemptNo: 1, channelId: 'c' } });

  expect(await deleteAttemptsBefore(db, cutoff, 2)).toBe(2);
  expect(await deleteAttemptsBefore(db, cutoff, 2)).toBe(1);
  expect(await deleteAttemptsBefore(db, cutoff, 2)).toBe(0);
  expect(await db.taskAttempt.count({ where: { taskId: fresh } })).toBe(1);

  const ep = await db.webhookEndpoint.create({ data: { id: newId('whe'), accountId: a, url: 'https://e', events: ['task.completed'], secret: 's' } });
  const delivery = (taskId: string, status: string, createdAt: Date) =>
    db.webhookDelivery.create({ data: { id: newId('whd'), endpointId: ep.id, accountId: a, taskId, target: 'endpoint', url: 'https://e', eventType: 'task.completed', body: '{}', status, createdAt } });
  const gone = await delivery(oldTasks[0], 'delivered', old);
  await db.webhookDeliveryAttempt.create({ data: { id: newId('wha'), deliveryId: gone.id, attemptNo: 1, statusCode: 200, durationMs: 5 } });
  const pending = await delivery(oldTasks[1], 'pending', old);
  const recent = await delivery(fresh, 'delivered', new Date());
  expect(await deleteWebhookDeliveriesBefore(db, cutoff, 10)).toBe(1);
  expect(await db.webhookDelivery.findMany({ where: { accountId: a }, select: { id: true }, orderBy: { id: 'asc' } })).toEqual([{ id: pending.id }, { id: recent.id }].sort((x, y) => x.id.localeCompare(y.id)));
  expect(await db.webhookDeliveryAttempt.count({ where: { deliveryId: gone.id } })).toBe(0);

  await db.idempotencyRecord.create({ data: { accountId: a, key: 'old', fingerprint: 'f', taskId: oldTasks[0], createdAt: old } });
  await db.idempotencyRecord.create({ data: { accountId: a, key: 'new', fingerprint: 'f', taskId: fresh } });
  expect(await deleteIdempotencyRecordsBefore(db, cutoff, 10)).toBe(1);
  expect((await db.idempotencyRecord.findMany({ where: { accountId: a } })).map((r) => r.key)).toEqual(['new']);

  await db.adminIdempotencyRecord.create({ data: { key: newId('k'), fingerprint: 'f', createdAt: old } });
  const keep = await db.adminIdempotencyRecord.create({ data: { key: newId('k'), fingerprint: 'f' } });
  expect(await deleteAdminIdempotencyRecordsBefore(db, cutoff, 10)).toBe(1);
  expect(await db.adminIdempotencyRecord.findUnique({ where: { key: keep.key } })).not.toBeNull();

  // The ledger and the tasks stay.
  expect(await db.task.count({ where: { accountId: a } })).toBe(4);
});
