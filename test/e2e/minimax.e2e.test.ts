// MiniMax end to end: gateway, worker and the simulator speaking MiniMax video v2 (our video-a-h3),
// on real Postgres and Redis, through the real minimax adapter and the one download path. Results
// are checked from the files themselves.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createFile, MP4BoxBuffer, type Movie } from 'mp4box';
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

const H3 = { 'video-a-h3': 'MiniMax-H3' };
const EFFORTS = { '1.5x': 'MiniMax-H3', '2x': 'MiniMax-H3-Max' };
const fast = { firstMs: 100, minMs: 200, maxMs: 2000 };

e2eSuite('minimax', {
  stack: async () => {
    const simPort = await freePort();
    const base = `http://127.0.0.1:${simPort}/minimax`;
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mg-mm-')), 'channels.json');
    const channel = (id: string, costOrder: number) => ({
      id, protocol: 'minimax', baseUrl: base, apiKey: `mm-key-${id}`, costOrder, models: H3, effortModels: EFFORTS, reportsViolations: true, poll: fast,
    });
    fs.writeFileSync(file, JSON.stringify({ channels: [channel('mm-main', 10), channel('mm-backup', 20)] }));
    // The breaker is tested elsewhere; here each test's channel order must not depend on the last one's failures.
    return { env: { SIM_PORT: String(simPort), PROVIDER_CONFIG: file, CHANNEL_BREAKER_FAILURES: '0', TASK_TIMEOUT_MS: '12000' } };
  },
}, (s) => ({ stack, api, account } = s));

let n = 0;
/** Calls of one task are grouped by prompt in the simulator: every test's prompt is its own. */
const unique = (prompt: string) => `${prompt} (${Date.now()}-${++n})`;
const h3 = (prompt: string, extra: Record<string, unknown> = {}) => ({ model: 'video-a-h3', prompt: unique(prompt), duration: 5, resolution: '768p', ratio: '16:9', ...extra });

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
  // MiniMax-H3 renders 2K only (docs/protocol-minimax.md): every resolution sold is delivered at 2K.
  it('an H3 video has the requested duration and ratio, at 2K (a 5 s request is 5 s)', async () => {
    const r = await run('video', h3('a lighthouse at dusk'));
    expect(r.last.status).toBe('completed');
    const m = mp4(await fileOf(r.last));
    expect(m.duration / m.timescale).toBeCloseTo(5, 3);
    expect([m.videoTracks[0].video!.width, m.videoTracks[0].video!.height]).toEqual([2560, 1440]);
    expect(r.attempts).toEqual([expect.objectContaining({ channel: 'mm-main', status: 'completed' })]);
    expect(r.ledger).toEqual(['charge']);
  });

  it('1080p 9:16 for 10 s (no effort tier at 1080p)', async () => {
    const r = await run('video', h3('a waterfall', { resolution: '1080p', ratio: '9:16', duration: 10 }));
    const m = mp4(await fileOf(r.last));
    expect(m.duration / m.timescale).toBeCloseTo(10, 3);
    expect([m.videoTracks[0].video!.width, m.videoTracks[0].video!.height]).toEqual([1440, 2560]);
  });
});

describe('refusals, each in MiniMax signal', () => {
  it.each([
    ['422 unprocessable_entity_error "(1026)" at submit', '#sim:violation-input'],
    ['HTTP 200 with base_resp.status_code 1026 at submit', '#sim:violation-legacy'],
    ['a failed task whose error code is the string "1027"', '#sim:violation'],
  ])('%s is content_violation, refunded, no fallback', async (_, directive) => {
    const r = await run('video', h3(`x ${directive}`));
    expect(r.last).toMatchObject({ status: 'failed', errorCode: 'content_violation', retryable: false });
    expect(r.attempts.map((a) => [a.channel, a.status])).toEqual([['mm-main', 'violation']]);
    expect(r.ledger).toEqual(['charge', 'refund']);
  });
});

/** A WAV of `seconds` of silence (8 kHz mono 16-bit): a real audio file the gateway measures. */
function wav(seconds: number): string {
  const samples = 8000 * seconds;
  const b = Buffer.alloc(44 + samples * 2);
  b.write('RIFF', 0); b.writeUInt32LE(36 + samples * 2, 4); b.write('WAVE', 8); b.write('fmt ', 12);
  b.writeUInt32LE(16, 16); b.writeUInt16LE(1, 20); b.writeUInt16LE(1, 22); b.writeUInt32LE(8000, 24); b.writeUInt32LE(16000, 28);
  b.writeUInt16LE(2, 32); b.writeUInt16LE(16, 34); b.write('data', 36); b.writeUInt32LE(samples * 2, 40);
  return `data:audio/wav;base64,${b.toString('base64')}`;
}
const PNG_DATA = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAYAAABytg0kAAAAEUlEQVR4AWM8AQQMQMDEAAUAMKYDJOk+9mYAAAAASUVORK5CYII=';

describe('what MiniMax-H3 renders differently (docs/protocol-minimax.md)', () => {
  it('a 2 s task is rendered as a 4 s video, billed as sold (MiniMax-H3 renders 4-15 s)', async () => {
    const r = await run('video', h3('a short clip', { duration: 2, resolution: '480p' }));
    expect(r.last.status).toBe('completed');
    const m = mp4(await fileOf(r.last));
    expect(m.duration / m.timescale).toBeCloseTo(4, 3);
    expect(r.ledger).toEqual(['charge']);
  });

  it('lip-sync is sent as a reference image with reference audio and completes', async () => {
    const r = await run('video', { model: 'video-a-h3', ref_mode: 'lip-sync', resolution: '768p', ratio: '16:9', media: [{ type: 'image', url: PNG_DATA }, { type: 'audio', url: wav(5) }], prompt: unique('she says hello') });
    expect(r.last.status).toBe('completed');
    expect(r.attempts).toEqual([expect.objectContaining({ channel: 'mm-main', status: 'completed' })]);
  });

  it('okay mode with frames and media is never sent (MiniMax-H3 refuses it): generation_failed, refunded', async () => {
    const r = await run('video', h3('frames and references', { ref_mode: 'okay', first_frame: PNG_DATA, media: [{ type: 'image', url: PNG_DATA }] }));
    expect(r.last).toMatchObject({ status: 'failed', errorCode: 'generation_failed', retryable: true });
    expect(r.attempts.map((a) => [a.channel, a.status])).toEqual([['mm-main', 'failed'], ['mm-backup', 'failed']]);
    expect(r.attempts.every((a) => /not sent, MiniMax-H3 refuses it: frame inputs and reference inputs cannot be used together/.test(a.message))).toBe(true);
    expect(r.ledger).toEqual(['charge', 'refund']);
  });
});

describe('failures', () => {
  it('a failed render falls back to the next channel', async () => {
    const r = await run('video', h3('a harbour #sim:fail-first'));
    expect(r.last.status).toBe('completed');
    expect(r.attempts.map((a) => [a.channel, a.status])).toEqual([['mm-main', 'failed'], ['mm-backup', 'completed']]);
    expect(r.ledger).toEqual(['charge']);
  });

  it('a 429 "(1002)" with Retry-After is retried on the same channel', async () => {
    const r = await run('video', h3('a meadow #sim:rate-limit=2'));
    expect(r.last.status).toBe('completed');
    expect(r.attempts.map((a) => [a.channel, a.status])).toEqual([['mm-main', 'completed']]);
  });

  it('an expired task is a failed render: after every channel the task fails and is refunded', async () => {
    const r = await run('video', h3('a desert #sim:expired'));
    expect(r.last).toMatchObject({ status: 'failed', errorCode: 'generation_failed', retryable: true });
    expect(r.attempts.map((a) => [a.channel, a.status])).toEqual([['mm-main', 'failed'], ['mm-backup', 'failed']]);
    expect(r.attempts.every((a) => /expired/.test(a.message))).toBe(true);
    expect(r.ledger).toEqual(['charge', 'refund']);
  });

  it('a task the upstream forgot (404) is lost, and the task still completes', async () => {
    const r = await run('video', h3('a forest #sim:lost'));
    expect(r.last.status).toBe('completed');
    expect(r.attempts[0]).toMatchObject({ channel: 'mm-main', kind: 'lost' });
    expect(r.attempts.at(-1)!.status).toBe('completed');
  });

  it('success without a video is no_result', async () => {
    const r = await run('video', h3('x #sim:no-file'));
    expect(r.last).toMatchObject({ status: 'failed', errorCode: 'no_result' });
  });
});

describe('timeout', () => {
  it('a task that times out is cancelled upstream (DELETE /v2/video_generation/{id})', async () => {
    const r = await run('video', h3('a render that never ends #sim:hang'));
    expect(r.last).toMatchObject({ status: 'failed', errorCode: 'timeout' });
    const upstreamId = (await stack.db.taskAttempt.findFirstOrThrow({ where: { taskId: r.taskId } })).upstreamId!;
    const task = async () => ((await (await fetch(`${stack.simUrl}/minimax/v2/query/video_generation/${upstreamId}`, { headers: { Authorization: 'Bearer mm-key-mm-main' } })).json()) as { task: { status: string } }).task;
    await waitFor(async () => (await task()).status === 'cancelled', 10_000, 'the upstream task cancelled').catch(() => undefined);
    expect((await task()).status).toBe('cancelled');
  });
});
