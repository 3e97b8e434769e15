// A completed task's webhook event carries the poll body's expiresAt: the body fixed
// when the delivery is created says when the result URLs stop answering; a failed task's does not.
import { completeTask, createDb, Db, failTask, newId } from '@mediagen/db';
import { createTestSchema, TestSchema } from '@mediagen/db/testing';
import { createTaskDeliveries } from '../src';

let schema: TestSchema;
let db: Db;
let accountId: string;
beforeAll(async () => {
  schema = await createTestSchema('webhook_expiry');
  db = createDb(schema.url, { poolSize: 2 });
  accountId = newId('acc');
  await db.account.create({ data: { id: accountId, name: 'hooks' } });
  await db.webhookEndpoint.create({ data: { id: newId('whe'), accountId, url: 'https://hooks.test/in', events: ['task.completed', 'task.failed'], secret: 'whsec_x' } });
});
afterAll(async () => {
  await db.$disconnect();
  await schema.drop();
});

async function task(): Promise<string> {
  const id = newId();
  await db.task.create({ data: { id, accountId, type: 'image', model: 'image-c-2.1', params: {}, costCents: 0, costMicros: 0n, deadlineAt: new Date(Date.now() + 60_000) } });
  return id;
}
const bodyOf = async (taskId: string) => JSON.parse((await db.webhookDelivery.findFirstOrThrow({ where: { taskId } })).body);

it('task.completed data carries expiresAt; task.failed has none', async () => {
  const done = await task();
  await completeTask(db, done, ['https://x/files/results/a/0.png'], { retentionSeconds: 3600 });
  expect(await createTaskDeliveries(db, done)).toHaveLength(1);
  const { expiresAt } = (await db.task.findUniqueOrThrow({ where: { id: done } }));
  expect((await bodyOf(done)).data).toMatchObject({ status: 'completed', taskId: done, expiresAt: expiresAt!.toISOString() });

  const failed = await task();
  await failTask(db, failed, { errorCode: 'timeout', errorMessage: 'm', retryable: true });
  await createTaskDeliveries(db, failed);
  expect((await bodyOf(failed)).data.expiresAt).toBeUndefined();
});
