// Every terminal outcome of a task (completed, failed with each code, timeout) through the real processes: gateway, one worker and the
// provider simulator. Each test checks the poll body, the refund (or its absence) and the ledger.
import { PNG } from 'pngjs';
import { Account, apiClient } from './support/api';
import type { Stack } from './support/stack';
import { e2eSuite } from './support/suite';
import { closedAttemptRows } from './support/task-checks';

jest.setTimeout(60_000);

let stack: Stack;
let api: ReturnType<typeof apiClient>;
let account: Account;

e2eSuite('outcomes', {}, (s) => ({ stack, api, account } = s));

const videoA = (prompt: string) => ({ model: 'video-a-h3', prompt, duration: 2, resolution: '480p', ratio: '9:16' });
const videoB = (prompt: string, tier = 'official') => ({ model: 'video-b-2.5', prompt, duration: 4, resolution: '480p', tier, ratio: '16:9' });

async function submit(kind: 'video' | 'image', body: Record<string, unknown>): Promise<string> {
  const res = await api.submit(account, kind, body);
  if (res.status !== 200) throw new Error(`submit: ${res.status} ${JSON.stringify(res.body)}`);
  return String(res.body.taskId);
}

async function ledgerOf(taskId: string) {
  const rows = await stack.db.ledgerEntry.findMany({ where: { taskId }, orderBy: { createdAt: 'asc' } });
  return rows.map((r) => ({ kind: r.kind, amountCents: Number(r.amountCents) }));
}

// The task settles first, then its attempt row is closed: read the attempts once the last is closed.
async function attemptsOf(taskId: string) {
  const rows = await closedAttemptRows(stack.db, taskId);
  return rows.map(({ channelId, status, upstreamId }) => ({ channelId, status, upstreamId }));
}

describe('completed', () => {
  it('a video task reports progress, completes with an MP4 served with ranges, and is charged once', async () => {
    const taskId = await submit('video', videoA('a lighthouse at dusk #sim:delay=1500'));
    const seen = await api.untilSettled(account, 'video', taskId);
    const processing = seen.filter((b) => b.status === 'processing');
    expect(processing.length).toBeGreaterThan(0);
    expect(processing.every((b) => typeof b.progress === 'number')).toBe(true);
    const last = seen.at(-1)!;
    expect(last).toEqual({ status: 'completed', resultUrls: [expect.stringMatching(`^${stack.gatewayUrl}/files/results/${taskId}/0\\.mp4$`)], type: 'video', expiresAt: expect.stringMatching(/Z$/) });

    const url = (last.resultUrls as string[])[0];
    const file = await api.fetchFile(url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('video/mp4');
    expect(file.bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
    const part = await api.fetchFile(url, { Range: 'bytes=0-7' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 0-7/${file.bytes.length}`);
    expect(part.bytes.equals(file.bytes.subarray(0, 8))).toBe(true);

    const task = await stack.db.task.findUniqueOrThrow({ where: { id: taskId } });
    expect(await ledgerOf(taskId)).toEqual([{ kind: 'charge', amountCents: -task.costCents }]);
    expect(await attemptsOf(taskId)).toEqual([{ channelId: 'sim-video-a', status: 'completed', upstreamId: expect.any(String) }]);
  });

  it('an image task completes with a PNG at the requested ratio and resolution', async () => {
    const taskId = await submit('image', { model: 'image-a-5.0', prompt: 'a red fox', ratio: '16:9', resolution: '2k' });
    const last = (await api.untilSettled(account, 'image', taskId)).at(-1)!;
    expect(last.status).toBe('completed');
    const file = await api.fetchFile((last.resultUrls as string[])[0]);
    expect(file.headers.get('content-type')).toBe('image/png');
    const png = PNG.sync.read(file.bytes);
    // Seedream's own size table for 2K at 16:9 (ModelArk, the model's vendor protocol): 2560x1440.
    expect([png.width, png.height]).toEqual([2560, 1440]);
  });

  it('an answers-at-once image model returns completed with resultUrls from the submit itself', async () => {
    const res = await api.submit(account, 'image', { model: 'image-c-2.1', prompt: 'a teapot #sim:delay=200', ratio: '3:4' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'completed', resultUrls: [expect.stringContaining('/files/results/')] });
    const png = PNG.sync.read((await api.fetchFile((res.body.resultUrls as string[])[0])).bytes);
    expect([png.width, png.height]).toEqual([768, 1024]);
  });

  it('video-b official falls back from the cheaper channel to the next one, charged once', async () => {
    const taskId = await submit('video', videoB('a harbour #sim:fail-first'));
    const last = (await api.untilSettled(account, 'video', taskId)).at(-1)!;
    expect(last.status).toBe('completed');
    expect((await attemptsOf(taskId)).map((a) => [a.channelId, a.status])).toEqual([
      ['sim-video-b-lowcost', 'failed'],
      ['sim-video-b-backup', 'completed'],
    ]);
    expect((await ledgerOf(taskId)).map((l) => l.kind)).toEqual(['charge']);
  });

  it('429 (honouring Retry-After) and 503 answers are retried on the same channel', async () => {
    const taskId = await submit('video', videoA('a storm #sim:rate-limit=2 #sim:flaky=1'));
    const last = (await api.untilSettled(account, 'video', taskId)).at(-1)!;
    expect(last.status).toBe('completed');
    const sim = await api.simTask(taskId);
    expect(sim.calls).toBeGreaterThanOrEqual(4); // 2 x 429, 1 x 503, then the submit that worked
    expect(sim.renders).toHaveLength(1);
    expect(await attemptsOf(taskId)).toHaveLength(1);
  });
});

describe('failed', () => {
  async function expectFailed(kind: 'video' | 'image', taskId: string, errorCode: string, retryable: boolean) {
    const last = (await api.untilSettled(account, kind, taskId)).at(-1)!;
    expect(last).toEqual({ status: 'failed', errorCode, retryable, errorMessage: expect.any(String), type: kind });
    expect((last.errorMessage as string).length).toBeGreaterThan(10);
    const task = await stack.db.task.findUniqueOrThrow({ where: { id: taskId } });
    expect(await ledgerOf(taskId)).toEqual([
      { kind: 'charge', amountCents: -task.costCents },
      { kind: 'refund', amountCents: task.costCents },
    ]);
    return last;
  }

  it('content_violation from a channel that reports it: not retryable, refunded, no fallback', async () => {
    const taskId = await submit('video', videoA('something forbidden #sim:violation'));
    await expectFailed('video', taskId, 'content_violation', false);
    expect((await api.simTask(taskId)).renders).toHaveLength(1);
  });

  it('content_violation from the image-b/image-d channel', async () => {
    const taskId = await submit('image', { model: 'image-d-3-pro-image-preview', prompt: 'x #sim:violation' });
    await expectFailed('image', taskId, 'content_violation', false);
  });

  it('a refusal from a channel that does not report violations is a plain generation_failed', async () => {
    const taskId = await submit('image', { model: 'image-a-5.0', prompt: 'x #sim:violation' });
    await expectFailed('image', taskId, 'generation_failed', true);
  });

  it('generation_failed for video-b only after every available channel was tried', async () => {
    const taskId = await submit('video', videoB('a comet #sim:fail'));
    await expectFailed('video', taskId, 'generation_failed', true);
    expect((await attemptsOf(taskId)).map((a) => [a.channelId, a.status])).toEqual([
      ['sim-video-b-lowcost', 'failed'],
      ['sim-video-b-backup', 'failed'],
      ['sim-video-b-official', 'failed'],
    ]);
    expect((await api.simTask(taskId)).renders.map((r) => r.channelId)).toEqual(['sim-video-b-lowcost', 'sim-video-b-backup', 'sim-video-b-official']);
  });

  it('no_result when the provider reports success without a file', async () => {
    const taskId = await submit('video', videoA('empty #sim:no-file'));
    await expectFailed('video', taskId, 'no_result', true);
  });

  it('no_result when the provider\'s file is not a usable image', async () => {
    const taskId = await submit('image', { model: 'image-b-2.5', prompt: 'broken #sim:bad-file' });
    await expectFailed('image', taskId, 'no_result', true);
  });

  it('refunds return the balance and release the in-progress slots', async () => {
    const acc = await stack.db.account.findUniqueOrThrow({ where: { id: account.accountId } });
    expect(acc.tasksInProgress).toBe(0);
    const balance = await api.admin('GET', `/accounts/${account.accountId}`);
    expect(balance.body.balanceCents).toBe(Number(acc.balanceCents));
  });
});
