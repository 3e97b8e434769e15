// The per-account cap on inspections running at once (MAX_INSPECTIONS_PER_ACCOUNT in
// services/fetch-precheck.ts): while two submits of an account are reading slow references, a
// third gets 429 `rate_limited` with Retry-After and makes no fetch; another account is not
// affected; a slot comes back when its inspection fails and when its client hangs up (the
// inspection is then stopped, not left running to the media deadline). Real Postgres and Redis.
import fs from 'node:fs';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startHarness, Harness } from './harness';
import { MAX_INSPECTIONS_PER_ACCOUNT } from '../src/services/fetch-precheck';
import { waitFor } from '../../../test/e2e/support/wait';

jest.setTimeout(60_000);

const FIXTURES = path.resolve(__dirname, '../../../packages/media/test/fixtures');
const clip = fs.readFileSync(path.join(FIXTURES, 'video-3s.mp4'));

let h: Harness;
let refServer: http.Server;
let refBase: string;
let gateway: http.Server;
let gatewayPort: number;
/** Requests the reference server holds, by path; `seen` counts every request by path. */
const held = new Map<string, http.ServerResponse>();
const seen = new Map<string, number>();
const closed = new Set<string>();

beforeAll(async () => {
  refServer = http.createServer((req, res) => {
    const p = req.url ?? '/';
    seen.set(p, (seen.get(p) ?? 0) + 1);
    if (p === '/ok.mp4') {
      res.writeHead(200, { 'Content-Type': 'video/mp4', 'Content-Length': clip.length });
      return void res.end(clip);
    }
    // Anything else: headers never come until the test says so.
    held.set(p, res);
    res.on('close', () => closed.add(p));
  });
  await new Promise<void>((r) => refServer.listen(0, '127.0.0.1', r));
  refBase = `http://127.0.0.1:${(refServer.address() as AddressInfo).port}`;
  // A media deadline far beyond the test: only a failure or a hang-up may free a slot.
  h = await startHarness('inspection_cap', { INSTANT_WAIT_MS: '0', MEDIA_TIMEOUT_MS: '45000', RATE_LIMIT_PER_MINUTE: '100000' });
  gateway = h.listen(0, '127.0.0.1');
  await new Promise((r) => gateway.once('listening', r));
  gatewayPort = (gateway.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const res of held.values()) res.destroy();
  refServer.closeAllConnections();
  await new Promise((r) => refServer.close(r));
  gateway.closeAllConnections();
  await new Promise((r) => gateway.close(r));
  await h.assertLedgerInvariant();
  await h.close();
});

const body = (ref: string) => ({ model: 'video-b-2.5', prompt: 'p', duration: 5, media: [{ type: 'video', url: `${refBase}${ref}` }] });

/** A submit over a real socket the test can hang up; resolves with its status, or -1 when cut. */
function submit(key: string, ref: string): { done: Promise<{ status: number; body: Record<string, unknown>; retryAfter?: string }>; hangUp(): void } {
  const payload = JSON.stringify(body(ref));
  const req = http.request({ port: gatewayPort, host: '127.0.0.1', method: 'POST', path: '/api/video/generate', agent: false, headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) } });
  const done = new Promise<{ status: number; body: Record<string, unknown>; retryAfter?: string }>((resolve) => {
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString() || '{}'), retryAfter: res.headers['retry-after'] as string | undefined }));
    });
    req.on('error', () => resolve({ status: -1, body: {} }));
  });
  req.end(payload);
  return { done, hangUp: () => req.destroy() };
}

it('a third concurrent inspection of one account gets 429 and fetches nothing; another account is not affected', async () => {
  expect(MAX_INSPECTIONS_PER_ACCOUNT).toBe(2);
  const a = await h.newAccount({ balanceCents: 10_000, maxConcurrentTasks: 50 });
  const b = await h.newAccount({ balanceCents: 10_000, maxConcurrentTasks: 50 });
  const first = submit(a.key, '/slow/a1.mp4');
  const second = submit(a.key, '/slow/a2.mp4');
  await waitFor(() => held.has('/slow/a1.mp4') && held.has('/slow/a2.mp4'), 10_000, 'both inspections reading');

  const third = await submit(a.key, '/slow/a3.mp4').done;
  expect(third.status).toBe(429);
  expect(third.body).toMatchObject({ code: 'rate_limited' });
  expect(typeof third.body.error).toBe('string');
  expect(Number(third.retryAfter)).toBeGreaterThan(0);
  expect(seen.get('/slow/a3.mp4')).toBeUndefined(); // refused before any fetch

  // Account b has its own slots, while a's two are still taken.
  const other = await submit(b.key, '/ok.mp4').done;
  expect(other.status).toBe(200);

  // A failed inspection gives its slot back: the reference answers 404, the submit gets its 400.
  held.get('/slow/a1.mp4')!.writeHead(404).end();
  expect((await first.done).status).toBe(400);
  const afterFailure = await submit(a.key, '/ok.mp4').done;
  expect(afterFailure.status).toBe(200);

  // A client that hangs up gives its slot back at once, and its reference fetch is dropped.
  const third2 = submit(a.key, '/slow/a4.mp4');
  await waitFor(() => held.has('/slow/a4.mp4'), 10_000, 'a4 reading');
  const refused = await submit(a.key, '/slow/a5.mp4').done; // a2 and a4 hold both slots
  expect(refused.status).toBe(429);
  second.hangUp();
  await waitFor(() => closed.has('/slow/a2.mp4'), 10_000, 'a2 fetch dropped');
  const afterHangUp = await submit(a.key, '/ok.mp4').done;
  expect(afterHangUp.status).toBe(200);
  expect((await second.done).status).toBe(-1);

  third2.hangUp();
  await waitFor(() => closed.has('/slow/a4.mp4'), 10_000, 'a4 fetch dropped');
});
