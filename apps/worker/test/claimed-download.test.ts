// An upstream callback's claim (the result files it says the render finished with, written into
// the job by the gateway's wake) starts their downloads beside the woken step's status read, and
// decides nothing: a claimed download is kept only when the status read names the same URL. The
// order is observed, not timed: the scripted upstream holds its status answer until the test lets
// it go, and the test's file server records each request as it arrives and whether its response
// was read to the end or closed unread.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import IORedis from 'ioredis';
import { ledgerDiscrepancies } from '@mediagen/db';
import { AdapterCapabilities, ChannelAdapter, ChannelConfig, classifyUpstreamError, RenderStatus, UpstreamError } from '@mediagen/providers';
import { runTaskPayloadSchema, wakeRedis, wakeTask, type CallbackClaim, type WakeRedis } from '@mediagen/queue';
import { eventually } from '../../../test/e2e/support/wait';
import { InProcess, startInProcess } from './in-process';

jest.setTimeout(40_000);

/** A small MP4 whose bytes after the header name the file it is (what the test reads back from storage). */
const mp4 = (name: string, size = 200) => Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom', 'latin1'), Buffer.alloc(12), Buffer.alloc(size, name)]);

/** The test's result host: every request with what became of its response. */
interface Served { path: string; at: number; outcome: 'pending' | 'read' | 'closed unread' }
const served: Served[] = [];
const files = new Map<string, Buffer>();
const fileServer = http.createServer((req, res) => {
  const entry: Served = { path: req.url ?? '', at: Date.now(), outcome: 'pending' };
  served.push(entry);
  const body = files.get(entry.path);
  if (!body) return void res.writeHead(404).end();
  res.on('finish', () => (entry.outcome = 'read'));
  res.on('close', () => entry.outcome === 'pending' && (entry.outcome = 'closed unread'));
  res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': body.length });
  // Large bodies go out in pieces, each after the client took the last (closed unread shows).
  let off = 0;
  const more = () => {
    while (off < body.length) {
      const piece = body.subarray(off, (off += 64 * 1024));
      if (!res.write(piece)) return void res.once('drain', more);
    }
    res.end();
  };
  more();
});
let fileBase = '';
const requestsOf = (p: string) => served.filter((s) => s.path === p);

/** The scripted upstream: status answers per render, each held until the test releases it. */
const answers = new Map<string, RenderStatus>();
let hold: Promise<void> = Promise.resolve();
let statusAsked = 0;

function scripted(ch: ChannelConfig['channels'][number]): ChannelAdapter {
  const capabilities: AdapterCapabilities = { idempotentSubmit: false, cancel: true, callbacks: 'hint', synchronous: false, findOrphan: false, pollUsesRender: false };
  let n = 0;
  return {
    channel: ch,
    capabilities,
    async submit(req) {
      const upstreamId = `${ch.id}-${++n}-${req.taskId}`;
      answers.set(upstreamId, { state: 'running', progress: 10 });
      return { upstreamId };
    },
    async poll(upstreamId): Promise<RenderStatus> {
      statusAsked += 1;
      await hold;
      const answer = answers.get(upstreamId);
      if (!answer) throw new UpstreamError('lost', `unknown ${upstreamId}`, undefined, 404);
      return answer;
    },
    async cancel() {},
    classifyError: (err, action) => classifyUpstreamError(err, { reportsViolations: false, action }),
    close() {},
  };
}

let w: InProcess;
let redis: WakeRedis;
beforeAll(async () => {
  await new Promise<void>((r) => fileServer.listen(0, '127.0.0.1', r));
  fileBase = `http://127.0.0.1:${(fileServer.address() as AddressInfo).port}`;
  // The first poll is far off: only a wake (the test's, as an upstream callback's) runs it.
  const poll = { firstMs: 60_000, minMs: 60_000, maxMs: 60_000 };
  w = await startInProcess(
    () => ({ channels: [{ id: 'hooked', baseUrl: 'http://127.0.0.1:1', apiKey: 'k', costOrder: 1, models: { 'video-a-h3': 'm' }, poll }] }),
    { TASK_TIMEOUT_MS: '60000', ALLOW_PRIVATE_MEDIA_URLS: 'true' },
    { adapters: (cfg) => new Map(cfg.channels.map((c) => [c.id, scripted(c)])) },
  );
  redis = wakeRedis(new IORedis(w.app.ctx.config.REDIS_URL, { maxRetriesPerRequest: null }));
});
afterAll(async () => {
  if (w) {
    expect(await ledgerDiscrepancies(w.db)).toEqual([]);
    await w.stop();
  }
  redis?.disconnect();
  await new Promise((r) => fileServer.close(r));
});

/** Submits a task and waits until its render runs upstream and its job waits for the poll. */
async function runningTask(prompt: string): Promise<{ taskId: string; upstreamId: string }> {
  const taskId = await w.submit(prompt);
  const upstreamId = await eventually('the render to run upstream', async () => {
    const [a] = await w.db.taskAttempt.findMany({ where: { taskId, status: 'running' } });
    return a?.upstreamId;
  });
  await eventually('the job to wait for its poll', async () => {
    const j = await w.queue.getJob(taskId);
    return j && (await j.getState()) === 'delayed' && runTaskPayloadSchema.parse(j.data).poll?.type === 'video';
  });
  return { taskId, upstreamId };
}

/** What the gateway does with a believable callback that claims `urls`. */
async function callback(taskId: string, claim: CallbackClaim): Promise<void> {
  expect(await wakeTask(w.queue, redis, taskId, claim)).toBe(true);
}

/** Holds every status answer until the returned function is called. */
function holdStatus(): () => void {
  let release!: () => void;
  hold = new Promise<void>((r) => (release = r));
  return () => {
    release();
    hold = Promise.resolve();
  };
}

const storedBytes = async (taskId: string): Promise<Buffer> => {
  const t = await w.db.task.findUniqueOrThrow({ where: { id: taskId } });
  const key = new URL(t.resultUrls[0]).pathname.replace(/^\/files\//, '');
  const chunks: Buffer[] = [];
  for await (const c of w.app.ctx.storage.createReadStream(key)) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks);
};

it('downloads the claimed file while the status read is still unanswered, and keeps it when the read names the same URL', async () => {
  const { taskId, upstreamId } = await runningTask('a claimed render');
  const file = `/ark/${taskId}.mp4?X-Tos-Signature=abc%2F1`;
  files.set(file, mp4('a'));
  answers.set(upstreamId, { state: 'succeeded', outputs: [{ kind: 'url', url: fileBase + file }] });
  const kept = w.app.ctx.stats.claimedKept;
  const release = holdStatus();
  const asked = statusAsked;
  try {
    await callback(taskId, { upstreamId, urls: [fileBase + file] });
    await eventually('the status read to be asked', async () => statusAsked > asked);
    // The file was asked for before the status answer: beside it, not after it.
    await eventually('the claimed file to be requested', async () => requestsOf(file).length === 1);
    expect((await w.db.task.findUniqueOrThrow({ where: { id: taskId } })).status).toBe('processing');
  } finally {
    release();
  }
  expect(await w.settled(taskId)).toMatchObject({ status: 'completed' });
  expect(await storedBytes(taskId)).toEqual(files.get(file));
  // One download of the file in all: the claimed one was kept.
  expect(requestsOf(file).map((s) => s.outcome)).toEqual(['read']);
  expect(w.app.ctx.stats.claimedKept - kept).toBe(1);
  expect((await w.closedAttempts(taskId)).map((a) => a.status)).toEqual(['completed']);
});

it('stores the file the status read names when the claim named another, and closes the claimed one unread', async () => {
  const { taskId, upstreamId } = await runningTask('a render whose callback named another file');
  const claimed = `/elsewhere/${taskId}.mp4`;
  const real = `/ark/${taskId}-real.mp4`;
  files.set(claimed, mp4('x', 8 * 1024 * 1024)); // large: it cannot all be sent before the step closes it
  files.set(real, mp4('b'));
  answers.set(upstreamId, { state: 'succeeded', outputs: [{ kind: 'url', url: fileBase + real }] });
  const kept = w.app.ctx.stats.claimedKept;
  await callback(taskId, { upstreamId, urls: [fileBase + claimed] });
  expect(await w.settled(taskId)).toMatchObject({ status: 'completed' });
  expect(await storedBytes(taskId)).toEqual(files.get(real));
  expect(requestsOf(real).map((s) => s.outcome)).toEqual(['read']);
  await eventually('the claimed download to be closed', async () => requestsOf(claimed)[0]?.outcome === 'closed unread');
  expect(requestsOf(claimed)).toHaveLength(1);
  expect(w.app.ctx.stats.claimedKept - kept).toBe(0);
});

it('a claim while the status read says "still running" completes nothing: the download is closed, the job waits for its next poll without the claim', async () => {
  const { taskId, upstreamId } = await runningTask('a render claimed too early');
  const file = `/ark/${taskId}-early.mp4`;
  files.set(file, mp4('c', 8 * 1024 * 1024));
  const asked = statusAsked;
  await callback(taskId, { upstreamId, urls: [fileBase + file] });
  await eventually('the woken step to read the status', async () => statusAsked > asked);
  // The state first, then the job: data read after the step put it back is the data it left.
  const j = await eventually('the job to wait again', async () =>
    statusAsked > asked && (await w.queue.getJobState(taskId)) === 'delayed' ? w.queue.getJob(taskId) : null,
  );
  expect(runTaskPayloadSchema.parse(j.data).claim).toBeUndefined();
  await eventually('the claimed download to be closed', async () => requestsOf(file)[0]?.outcome === 'closed unread');
  const t = await w.db.task.findUniqueOrThrow({ where: { id: taskId } });
  expect([t.status, t.resultUrls]).toEqual(['processing', []]);
  // The render then finishes: the next wake reads the status and downloads the file it names.
  answers.set(upstreamId, { state: 'succeeded', outputs: [{ kind: 'url', url: fileBase + file }] });
  await j.promote();
  expect(await w.settled(taskId)).toMatchObject({ status: 'completed' });
  expect(requestsOf(file).map((s) => s.outcome)).toEqual(['closed unread', 'read']);
});

it('a claim about another render of the task, or a claimed file that fails, changes nothing: the step downloads what its read names', async () => {
  const { taskId, upstreamId } = await runningTask('a render with a stale claim');
  const stale = `/ark/${taskId}-stale.mp4`;
  const file = `/ark/${taskId}-final.mp4`;
  files.set(stale, mp4('s'));
  files.set(file, mp4('f'));
  answers.set(upstreamId, { state: 'succeeded', outputs: [{ kind: 'url', url: fileBase + file }] });
  await callback(taskId, { upstreamId: `${upstreamId}-other`, urls: [fileBase + stale] });
  expect(await w.settled(taskId)).toMatchObject({ status: 'completed' });
  expect(requestsOf(stale)).toHaveLength(0);
  expect(await storedBytes(taskId)).toEqual(files.get(file));

  // A claimed URL that answers 404 (the file not there yet): downloaded again after the read, and stored.
  const second = await runningTask('a render claimed before its file was up');
  const late = `/ark/${second.taskId}-late.mp4`;
  answers.set(second.upstreamId, { state: 'succeeded', outputs: [{ kind: 'url', url: fileBase + late }] });
  const release = holdStatus();
  try {
    await callback(second.taskId, { upstreamId: second.upstreamId, urls: [fileBase + late] });
    await eventually('the claimed file to be asked for (and not found)', async () => requestsOf(late).length === 1);
    files.set(late, mp4('l'));
  } finally {
    release();
  }
  expect(await w.settled(second.taskId)).toMatchObject({ status: 'completed' });
  expect(await storedBytes(second.taskId)).toEqual(files.get(late));
  expect(requestsOf(late)).toHaveLength(2);
});
