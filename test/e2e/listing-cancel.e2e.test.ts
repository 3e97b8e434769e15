// Task listing and cancel through the real processes. Channels: video-a-h3
// on a MiniMax-protocol channel (its adapter cancels upstream) that renders one task at a time, and
// video-b-2.5 on the simulator's own protocol, which has no cancel. Every cancel checks the ledger.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTaskQueue } from '@mediagen/queue';
import { Account, apiClient } from './support/api';
import { freePort } from './support/processes';
import type { Stack } from './support/stack';
import { e2eSuite } from './support/suite';
import { waitFor } from './support/wait';

jest.setTimeout(90_000);

let stack: Stack;
let api: ReturnType<typeof apiClient>;
let account: Account;
let dir: string;

e2eSuite(
  'cancel',
  {
    balanceCents: 100_000,
    maxConcurrentTasks: 50,
    stack: async () => {
      const simPort = await freePort();
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-cancel-'));
      const poll = { firstMs: 100, minMs: 200, maxMs: 1000 };
      fs.writeFileSync(path.join(dir, 'channels.json'), JSON.stringify({
        channels: [
          { id: 'mm', protocol: 'minimax', baseUrl: `http://127.0.0.1:${simPort}/minimax`, apiKey: 'mm-key', costOrder: 10, maxInFlight: 1, models: { 'video-a-h3': 'MiniMax-H3' }, effortModels: { '1.5x': 'MiniMax-H3', '2x': 'MiniMax-H3-Max' }, poll },
          { id: 'plain', baseUrl: `http://127.0.0.1:${simPort}/ch/plain`, apiKey: 'k', tier: 'third-party', costOrder: 10, models: { 'video-b-2.5': 'sim/video-b-2.5' }, poll },
        ],
      }));
      return { env: { PROVIDER_CONFIG: path.join(dir, 'channels.json'), SIM_PORT: String(simPort), CANCEL_WAIT_MS: '8000' } };
    },
  },
  (s) => ({ stack, api, account } = s),
);
afterAll(() => dir && fs.rmSync(dir, { recursive: true, force: true }));

const videoA = (prompt: string) => ({ model: 'video-a-h3', prompt, duration: 2, resolution: '480p' });
const videoB = (prompt: string) => ({ model: 'video-b-2.5', prompt, duration: 4, resolution: '480p', tier: 'third-party' });

async function submit(kind: 'video' | 'image', body: Record<string, unknown>): Promise<string> {
  const res = await api.submit(account, kind, body);
  if (res.status !== 200) throw new Error(`submit: ${res.status} ${JSON.stringify(res.body)}`);
  return String(res.body.taskId);
}

const cancel = async (kind: 'video' | 'image', taskId: string, who = account) => {
  const { status, body } = await api.cancel(who, kind, taskId);
  return { status, body };
};

async function ledgerOf(taskId: string) {
  const rows = await stack.db.ledgerEntry.findMany({ where: { taskId }, orderBy: { createdAt: 'asc' } });
  return rows.map((r) => [r.kind, Number(r.amountCents)]);
}

const cancelledBody = (taskId: string) => ({ taskId, status: 'failed', errorCode: 'cancelled', retryable: false, errorMessage: expect.any(String), type: 'video' });

describe('cancel', () => {
  it('a running render on a channel that can cancel, and a task still waiting for that channel: both failed/cancelled and refunded', async () => {
    const running = await submit('video', videoA('a long take of the sea #sim:delay=30000'));
    await waitFor(async () => (await stack.db.taskAttempt.findFirst({ where: { taskId: running, upstreamId: { not: null } } })) !== null, 15_000, 'the render accepted upstream');
    // The channel renders one task at a time: this one waits for the slot, accepted by no upstream.
    const waiting = await submit('video', videoA('the next take'));
    // The worker has taken its job up, found the slot taken and put it back to wait (delayed).
    const queue = createTaskQueue(stack.redis, stack.prefix);
    try {
      await waitFor(async () => (await (await queue.getJob(waiting))?.getState()) === 'delayed', 15_000, 'the next take waiting for the slot');
    } finally {
      await queue.close();
    }
    expect(await stack.db.taskAttempt.count({ where: { taskId: waiting, upstreamId: { not: null } } })).toBe(0);

    const w = await cancel('video', waiting);
    expect(w).toEqual({ status: 200, body: cancelledBody(waiting) });
    expect(await ledgerOf(waiting)).toEqual([['charge', expect.any(Number)], ['refund', expect.any(Number)]]);

    const r = await cancel('video', running);
    expect(r).toEqual({ status: 200, body: cancelledBody(running) });
    const [charge, refund] = await ledgerOf(running);
    expect(charge[0]).toBe('charge');
    expect(refund).toEqual(['refund', -Number(charge[1])]);
    // The render was stopped at the provider, and its attempt closed (just after the settle).
    await waitFor(async () => (await stack.db.taskAttempt.findFirst({ where: { taskId: running } }))?.status === 'abandoned', 5_000, 'the attempt closed');
    const attempt = await stack.db.taskAttempt.findFirst({ where: { taskId: running } });
    const upstream = await fetch(`${stack.simUrl}/minimax/v2/query/video_generation/${attempt!.upstreamId}`, { headers: { Authorization: 'Bearer mm-key' } });
    expect(((await upstream.json()) as { task: { status: string } }).task.status).toBe('cancelled');

    // Idempotent: the same answer again, and no second refund.
    expect(await cancel('video', running)).toEqual({ status: 200, body: cancelledBody(running) });
    expect(await ledgerOf(running)).toHaveLength(2);
    expect((await api.poll(account, 'video', running)).body).toMatchObject({ status: 'failed', errorCode: 'cancelled', retryable: false });
    const acc = await api.admin('GET', `/accounts/${account.accountId}`);
    expect(acc.body.tasksInProgress).toBe(0);
  });

  it('a render on a channel without cancel is 409 not_cancellable and finishes normally; a finished task is 409; another account gets 404', async () => {
    const taskId = await submit('video', videoB('a slow pan #sim:delay=1500'));
    await waitFor(async () => (await stack.db.taskAttempt.findFirst({ where: { taskId, upstreamId: { not: null } } })) !== null, 15_000, 'accepted upstream');
    const refused = await cancel('video', taskId);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('not_cancellable');
    const last = (await api.untilSettled(account, 'video', taskId)).at(-1)!;
    expect(last.status).toBe('completed');
    expect((await ledgerOf(taskId)).map((e) => e[0])).toEqual(['charge']);
    const finished = await cancel('video', taskId);
    expect(finished.status).toBe(409);
    expect(finished.body.code).toBe('not_cancellable');
    const stranger = await api.newAccount(1_000);
    expect((await cancel('video', taskId, stranger)).status).toBe(404);
    expect((await cancel('image', taskId)).status).toBe(404);
  });
});

describe('GET /api/tasks', () => {
  it('pages through the account\'s tasks newest first while new ones are created, with no repeats or gaps', async () => {
    const lister = await api.newAccount(100_000, 50);
    const sub = async () => {
      const res = await api.submit(lister, 'video', videoB('a page of tasks'));
      return String(res.body.taskId);
    };
    const before: string[] = [];
    for (let i = 0; i < 5; i++) before.push(await sub());
    const seen: string[] = [];
    let cursor: string | null = null;
    const created: string[] = [];
    do {
      const res = await api.listTasks(lister, `limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      const body = res.body;
      for (const t of body.data) {
        expect(t).toMatchObject({ model: 'video-b-2.5', createdAt: expect.stringMatching(/Z$/) });
        seen.push(String(t.taskId));
      }
      cursor = body.nextCursor;
      created.push(await sub()); // created between pages: newer than every cursor
    } while (cursor);
    expect(seen).toEqual([...before].reverse());
    const first = (await api.listTasks(lister, 'limit=50')).body;
    expect(first.data.map((t) => t.taskId)).toEqual([...created.reverse(), ...[...before].reverse()]);
    for (const t of [...before, ...created]) expect((await api.untilSettled(lister, 'video', t, 30_000)).at(-1)!.status).toBe('completed');
  });
});
