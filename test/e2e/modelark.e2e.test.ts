// ModelArk end to end: gateway, worker and the simulator speaking ModelArk (Seedance tasks,
// Seedream images), on real Postgres and Redis, through the real modelark adapter and the one
// download path. Results are checked from the files themselves.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createFile, MP4BoxBuffer, type Movie } from 'mp4box';
import { PNG } from 'pngjs';
import { Account, apiClient } from './support/api';
import { freePort } from './support/processes';
import type { Stack } from './support/stack';
import { e2eSuite } from './support/suite';
import { closedAttemptRows } from './support/task-checks';
import { waitFor } from './support/wait';

jest.setTimeout(60_000);

let stack: Stack;
let api: ReturnType<typeof apiClient>;
let account: Account;

const SEEDANCE = { 'video-b-2.5': 'dreamina-seedance-2-5-260628', 'video-b-2.0': 'dreamina-seedance-2-0-260128' };
const fast = { firstMs: 100, minMs: 200, maxMs: 2000 };

e2eSuite('modelark', {
  stack: async () => {
    const simPort = await freePort();
    const base = `http://127.0.0.1:${simPort}/modelark/api/v3`;
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mg-ark-')), 'channels.json');
    fs.writeFileSync(file, JSON.stringify({
      channels: [
        // The low-cost channel does not report refusals: a refusal there is an ordinary failed render.
        { id: 'ark-lowcost', protocol: 'modelark', baseUrl: base, apiKey: 'ark-key-lowcost', tier: 'third-party', costOrder: 10, models: SEEDANCE, poll: fast },
        { id: 'ark-official', protocol: 'modelark', baseUrl: base, apiKey: 'ark-key-official', tier: 'official', costOrder: 30, models: SEEDANCE, reportsViolations: true, poll: fast },
        // Polled only after 30 s: a task on it that finishes sooner was woken by ModelArk's callback.
        { id: 'ark-hooked', protocol: 'modelark', baseUrl: base, apiKey: 'ark-key-hooked', tier: 'official', costOrder: 10,
          models: { 'video-b-2.0-mini': 'dreamina-seedance-2-0-mini-260615' }, poll: { firstMs: 30_000, minMs: 30_000, maxMs: 60_000 } },
        { id: 'ark-inline', protocol: 'modelark', baseUrl: base, apiKey: 'ark-key-inline', costOrder: 10, imageResponseFormat: 'b64_json', poll: fast,
          models: { 'image-b-2': 'seedream-4-0-250828' } },
        { id: 'ark-images', protocol: 'modelark', baseUrl: base, apiKey: 'ark-key-images', costOrder: 10, reportsViolations: true, poll: fast,
          models: { 'image-a-5.0': 'seedream-5-0-260128', 'image-b-2.5': 'seedream-4-5-251128' } },
      ],
    }));
    // The breaker is tested elsewhere; here each test's channel order must not depend on the last one's failures.
    return { env: { SIM_PORT: String(simPort), PROVIDER_CONFIG: file, CHANNEL_BREAKER_FAILURES: '0', TASK_TIMEOUT_MS: '12000' } };
  },
}, (s) => ({ stack, api, account } = s));

let n = 0;
/** Calls of one task are grouped by prompt in the simulator: every test's prompt is its own. */
const unique = (prompt: string) => `${prompt} (${Date.now()}-${++n})`;
const videoB = (prompt: string, extra: Record<string, unknown> = {}) => ({ model: 'video-b-2.5', prompt: unique(prompt), duration: 6, resolution: '480p', ratio: '9:16', tier: 'official', ...extra });

async function run(kind: 'video' | 'image', body: Record<string, unknown>) {
  const res = await api.submit(account, kind, body);
  if (res.status !== 200) throw new Error(`submit: ${res.status} ${JSON.stringify(res.body)}`);
  const taskId = String(res.body.taskId);
  const last = (await api.untilSettled(account, kind, taskId, 30_000)).at(-1)!;
  // The task is settled before its last attempt row is closed (settle first, then tidy): wait for it.
  const attempts = await closedAttemptRows(stack.db, taskId);
  const ledger = (await stack.db.ledgerEntry.findMany({ where: { taskId }, orderBy: { createdAt: 'asc' } })).map((r) => r.kind);
  return { taskId, last, attempts: attempts.map((a) => ({ channel: a.channelId, status: a.status, kind: a.errorKind, message: a.errorMessage ?? '' })), ledger };
}

function mp4(bytes: Buffer): Movie {
  const f = createFile();
  let m: Movie | undefined;
  f.onReady = (x) => (m = x);
  f.appendBuffer(MP4BoxBuffer.fromArrayBuffer(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length), 0), true);
  f.flush();
  if (!m) throw new Error('the result is not an MP4');
  return m;
}
const fileOf = async (last: Record<string, unknown>) => (await api.fetchFile((last.resultUrls as string[])[0])).bytes;

describe('completion', () => {
  it('a Seedance video has the requested duration, ratio and resolution, from the cheapest channel', async () => {
    const r = await run('video', videoB('a fox in the snow', { tier: 'third-party' }));
    expect(r.last.status).toBe('completed');
    const m = mp4(await fileOf(r.last));
    expect(m.duration / m.timescale).toBeCloseTo(6, 3);
    expect([m.videoTracks[0].video!.width, m.videoTracks[0].video!.height]).toEqual([480, 854]);
    expect(r.attempts).toEqual([expect.objectContaining({ channel: 'ark-lowcost', status: 'completed' })]);
    expect(r.ledger).toEqual(['charge']);
  });

  it('a Seedream image (synchronous) has the requested ratio and size, or the nearest size its version takes', async () => {
    const a = await run('image', { model: 'image-a-5.0', prompt: unique('a red bicycle'), ratio: '16:9', resolution: '2k' });
    expect(a.last.status).toBe('completed');
    expect(PNG.sync.read(await fileOf(a.last))).toMatchObject({ width: 2560, height: 1440 });
    // Seedream 4.5 renders at least 3,686,400 pixels: a 1k 4:3 image is delivered at its 2K size.
    const b = await run('image', { model: 'image-b-2.5', prompt: unique('a teapot'), ratio: '4:3', resolution: '1k' });
    expect(PNG.sync.read(await fileOf(b.last))).toMatchObject({ width: 2304, height: 1728 });
  });
});

describe('inline results', () => {
  it('a Seedream image answered as base64 is stored like a downloaded one (no resolution parameter: 2K)', async () => {
    const r = await run('image', { model: 'image-b-2', prompt: unique('a lantern'), ratio: '3:2' });
    expect(r.last.status).toBe('completed');
    expect(PNG.sync.read(await fileOf(r.last))).toMatchObject({ width: 2496, height: 1664 });
    expect(r.attempts.map((a) => [a.channel, a.status])).toEqual([['ark-inline', 'completed']]);
  });
});

describe('callbacks', () => {
  it('ModelArk\'s (unsigned) callback wakes the task long before its first poll', async () => {
    const started = Date.now();
    const r = await run('video', videoB('a kite', { model: 'video-b-2.0-mini', resolution: '720p', duration: 4 }));
    expect(r.last.status).toBe('completed');
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(r.attempts.map((a) => [a.channel, a.status])).toEqual([['ark-hooked', 'completed']]);
    const m = mp4(await fileOf(r.last));
    expect(m.duration / m.timescale).toBeCloseTo(4, 3);
    expect([m.videoTracks[0].video!.width, m.videoTracks[0].video!.height]).toEqual([720, 1280]);
  });
});

describe('refusals, each in ModelArk signal', () => {
  it('an output refusal (failed task OutputVideoSensitiveContentDetected): a failed render on the quiet channel, content_violation on the reporting one', async () => {
    const r = await run('video', videoB('x #sim:violation'));
    expect(r.last).toMatchObject({ status: 'failed', errorCode: 'content_violation', retryable: false });
    expect(r.attempts.map((a) => [a.channel, a.status])).toEqual([['ark-lowcost', 'failed'], ['ark-official', 'violation']]);
    expect(r.attempts[1].message).toMatch(/OutputVideoSensitiveContentDetected/);
    expect(r.ledger).toEqual(['charge', 'refund']);
  });

  it('an input refusal (400 InputTextSensitiveContentDetected at submit)', async () => {
    const r = await run('video', videoB('x #sim:violation-input'));
    expect(r.last).toMatchObject({ status: 'failed', errorCode: 'content_violation' });
    expect(r.attempts.map((a) => [a.channel, a.status])).toEqual([['ark-lowcost', 'failed'], ['ark-official', 'violation']]);
    expect(r.attempts[1].message).toMatch(/InputTextSensitiveContentDetected/);
  });

  it('Seedream: an input 400 and an output image entry error', async () => {
    for (const d of ['#sim:violation-input', '#sim:violation']) {
      const r = await run('image', { model: 'image-b-2.5', prompt: unique(`x ${d}`), ratio: '1:1', resolution: '1k' });
      expect(r.last).toMatchObject({ status: 'failed', errorCode: 'content_violation' });
      expect(r.ledger).toEqual(['charge', 'refund']);
    }
  });
});

describe('failures', () => {
  it('a failed render falls back to the next channel', async () => {
    const r = await run('video', videoB('a harbour #sim:fail-first'));
    expect(r.last.status).toBe('completed');
    expect(r.attempts.map((a) => [a.channel, a.status])).toEqual([['ark-lowcost', 'failed'], ['ark-official', 'completed']]);
    expect(r.ledger).toEqual(['charge']);
  });

  it('a 429 (RateLimitExceeded, Retry-After) is retried on the same channel', async () => {
    const r = await run('video', videoB('a meadow #sim:rate-limit=2', { tier: 'third-party' }));
    expect(r.last.status).toBe('completed');
    expect(r.attempts.map((a) => [a.channel, a.status])).toEqual([['ark-lowcost', 'completed']]);
  });

  it('an expired task is a failed render: every channel expires, the task fails and is refunded', async () => {
    const r = await run('video', videoB('a desert #sim:expired'));
    expect(r.last).toMatchObject({ status: 'failed', errorCode: 'generation_failed', retryable: true });
    expect(r.attempts.map((a) => [a.channel, a.status])).toEqual([['ark-lowcost', 'failed'], ['ark-official', 'failed']]);
    expect(r.attempts.every((a) => /expired/.test(a.message))).toBe(true);
    expect(r.ledger).toEqual(['charge', 'refund']);
  });

  it('a task the upstream forgot (404) is lost, and the task still completes', async () => {
    const r = await run('video', videoB('a forest #sim:lost'));
    expect(r.last.status).toBe('completed');
    expect(r.attempts[0]).toMatchObject({ channel: 'ark-lowcost', kind: 'lost' });
    expect(r.attempts.at(-1)!.status).toBe('completed');
    expect(r.ledger).toEqual(['charge']);
  });

  it('success without a video is no_result', async () => {
    const r = await run('video', videoB('x #sim:no-file', { tier: 'third-party' }));
    expect(r.last).toMatchObject({ status: 'failed', errorCode: 'no_result' });
  });
});

describe('timeout', () => {
  it('a task that times out while queued upstream is cancelled there (DELETE)', async () => {
    // Queued for the first quarter of its 60 s render: still cancellable when the 12 s deadline passes.
    const r = await run('video', videoB('a slow queue #sim:delay=60000', { tier: 'third-party' }));
    expect(r.last).toMatchObject({ status: 'failed', errorCode: 'timeout' });
    const upstreamId = (await stack.db.taskAttempt.findFirstOrThrow({ where: { taskId: r.taskId } })).upstreamId!;
    const task = async () => (await (await fetch(`${stack.simUrl}/modelark/api/v3/contents/generations/tasks/${upstreamId}`, { headers: { Authorization: 'Bearer ark-key-lowcost' } })).json()) as { status: string };
    await waitFor(async () => (await task()).status === 'cancelled', 10_000, 'the upstream task cancelled').catch(() => undefined);
    expect((await task()).status).toBe('cancelled');
  });
});
