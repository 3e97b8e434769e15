// What the per-protocol end-to-end files ask of a task: submit it, read its attempts once the last
// one is closed (the task settles first, then its attempt row), read its ledger, and check a failed
// outcome with its refund. `suite` is read at call time: the suite is ready only in beforeAll.
import type { Db } from '@mediagen/db';
import type { Suite } from './suite';
import { waitFor } from './wait';

/**
 * A task's attempts once the last one is closed (the task settles first, then its attempt row), or
 * as they are after `timeoutMs`: the caller's expectation then says which one stayed open.
 */
export async function closedAttemptRows(db: Db, taskId: string, timeoutMs = 5_000) {
  const read = () => db.taskAttempt.findMany({ where: { taskId }, orderBy: { attemptNo: 'asc' } });
  let rows = await read();
  await waitFor(async () => !(rows = await read()).some((a) => !a.finishedAt), timeoutMs, `the attempts of ${taskId} closed`).catch(() => undefined);
  return rows;
}

export function taskChecks(suite: () => Suite) {
  async function submit(kind: 'video' | 'image', body: Record<string, unknown>): Promise<string> {
    const { api, account } = suite();
    const res = await api.submit(account, kind, body);
    if (res.status !== 200) throw new Error(`submit: ${res.status} ${JSON.stringify(res.body)}`);
    return String(res.body.taskId);
  }

  const closedAttempts = (taskId: string) => closedAttemptRows(suite().stack.db, taskId);

  const attemptsOf = async (taskId: string) => (await closedAttempts(taskId)).map((a) => [a.channelId, a.status]);

  const ledgerOf = async (taskId: string) =>
    (await suite().stack.db.ledgerEntry.findMany({ where: { taskId }, orderBy: { createdAt: 'asc' } })).map((r) => r.kind);

  async function expectFailed(kind: 'video' | 'image', taskId: string, errorCode: string) {
    const { api, account } = suite();
    const last = (await api.untilSettled(account, kind, taskId)).at(-1)!;
    expect(last).toMatchObject({ status: 'failed', errorCode });
    expect(await ledgerOf(taskId)).toEqual(['charge', 'refund']);
  }

  return { submit, closedAttempts, attemptsOf, ledgerOf, expectFailed };
}
