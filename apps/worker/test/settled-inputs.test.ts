// A client's inline (and snapshotted) inputs live only while their task may need them.
// Once the task settles, the maintenance run deletes the stored files and their rows; inputs of
// unfinished tasks stay. Real Postgres, filesystem storage.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createDb, createTaskWithCharge, creditAccount, failTask, recordInlineFiles, type Db } from '@mediagen/db';
import { createTestSchema, type TestSchema } from '@mediagen/db/testing';
import { createStorage, newInputKey } from '@mediagen/storage';
import { deleteSettledInputs } from '../src/settled-inputs';

let schema: TestSchema;
let db: Db;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-inputs-'));
const storage = createStorage({ DATA_DIR: dir });

beforeAll(async () => {
  schema = await createTestSchema('settled_inputs');
  db = createDb(schema.url, { poolSize: 2 });
});
afterAll(async () => {
  await db.$disconnect();
  await schema.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

it('deletes the inputs of settled tasks and keeps those of running ones', async () => {
  await db.account.create({ data: { id: 'acc_in', name: 'inputs' } });
  await creditAccount(db, 'acc_in', 1_000, 'test');
  const task = async () => {
    const taskId = randomUUID();
    await createTaskWithCharge(db, {
      taskId, accountId: 'acc_in', type: 'image', model: 'image-b-2.5', params: {}, costCents: 1, costMicros: 10_000n, billedSeconds: null,
      deadlineAt: new Date(Date.now() + 60_000),
    } as never);
    const key = newInputKey(0, 'png');
    await storage.put(key, Buffer.from('photo'), 'image/png');
    await recordInlineFiles(db, taskId, [{ storageKey: key, mime: 'image/png', bytes: 5 }]);
    return { taskId, key };
  };
  const settled = await task();
  const running = await task();
  await failTask(db, settled.taskId, { errorCode: 'generation_failed', errorMessage: 'x', retryable: true });

  expect(await deleteSettledInputs({ db, storage })).toBe(1);
  expect(await storage.stat(settled.key)).toBeNull();
  expect(await db.inlineFile.count({ where: { taskId: settled.taskId } })).toBe(0);
  expect(await storage.stat(running.key)).not.toBeNull();
  expect(await db.inlineFile.count({ where: { taskId: running.taskId } })).toBe(1);
});
