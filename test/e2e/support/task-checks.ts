// What the per-protocol end-to-end files ask of a task: submit it, read its attempts once the last
// one is closed (the task settles first, then its attempt row), read its ledger, and check a failed
// outcome with its refund. `suite` is read at call time: the suite is ready only in beforeAll.
import type { Suite } from './suite';

export function taskChecks(suite: () => Suite) {
  async function submit(kind: 'video' | 'image', body: Record<string, unknown>): Promise<string> {
    const { api, account } = suite();
    const res = await api.submit(account, kind, body);
    if (res.status !== 200) throw new Error(`submit: ${res.status} ${JSON.stringify(res.body)}`);
    return String(res.body.taskId);
  }

  async function closedAttempts(taskId: string) {
    const { db } = suite().stack;
    let rows = await db.taskAttempt.findMany({ where: { taskId }, orderBy: { attemptNo: 'asc' } });
    for (let i = 0; i < 60 && rows.some((a) => !a.finishedAt); i++) {
      await new Promise((r) => setTimeout(r, 50));
      rows = await db.taskAttempt.findMany({ where: { taskId }, orderBy: { attemptNo: 'asc' } });
    }
    return rows;
  }

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
