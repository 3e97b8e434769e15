// Worker behaviour that depends on the channel configuration: the per-channel in-flight cap,
// giving up on a channel that keeps timing out, and a result that cannot be saved.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ledgerDiscrepancies } from '@mediagen/db';
import { waitFor } from '../../../test/e2e/support/wait';
import { InProcess, startInProcess } from './in-process';

jest.setTimeout(30_000);

describe('a channel capped at one render in flight', () => {
  let w: InProcess;
  beforeAll(async () => {
    w = await startInProcess((base) => ({
      channels: [{ id: 'narrow', baseUrl: `${base}/ch/narrow`, apiKey: 'k', costOrder: 1, models: { 'video-a-h3': 'm' }, maxInFlight: 1, poll: { firstMs: 50, minMs: 50, maxMs: 200 } }],
    }));
  });
  afterAll(async () => {
    expect(await ledgerDiscrepancies(w.db)).toEqual([]);
    await w.stop();
  });

  it('runs the renders one after another, and all complete', async () => {
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, w.sim.inFlight())), 10);
    const ids = await Promise.all([1, 2, 3].map((i) => w.submit(`clip ${i} #sim:delay=300`)));
    const done = await Promise.all(ids.map((id) => w.settled(id)));
    clearInterval(sampler);
    expect(done.map((t) => t.status)).toEqual(['completed', 'completed', 'completed']);
    expect(peak).toBe(1);
    // The slot is given back right after the settlement commits.
    await waitFor(async () => (await w.app.ctx.slots.inUse('narrow')) === 0, 5_000, 'the slot given back').catch(() => undefined);
    expect(await w.app.ctx.slots.inUse('narrow')).toBe(0);
  });
});

describe('transient errors and storage failures', () => {
  let w: InProcess;
  // An upstream that answers every call with 503: a transient failure after the request was sent.
  // (A refused connection is `unsent` and moves on at once: packages/providers/test/unsent-submit.test.ts.)
  const down = http.createServer((_req, res) => res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"overloaded"}'));
  beforeAll(async () => {
    await new Promise<void>((r) => down.listen(0, '127.0.0.1', r));
    const downPort = (down.address() as AddressInfo).port;
    w = await startInProcess(
      (base) => ({
        channels: [
          { id: 'down', baseUrl: `http://127.0.0.1:${downPort}/ch/down`, apiKey: 'k', costOrder: 1, models: { 'video-a-h3': 'm' } },
          { id: 'up', baseUrl: `${base}/ch/up`, apiKey: 'k', costOrder: 2, models: { 'video-a-h3': 'm' }, poll: { firstMs: 50, minMs: 50, maxMs: 200 } },
        ],
      }),
      { WORKER_MAX_TRANSIENT_ERRORS: '2' },
    );
  });
  afterAll(async () => {
    expect(await ledgerDiscrepancies(w.db)).toEqual([]);
    await w.stop();
    await new Promise((r) => down.close(r));
  });

  it('a channel that keeps failing transiently counts as a failed attempt: the next channel renders it', async () => {
    const id = await w.submit('a bridge');
    expect((await w.settled(id)).status).toBe('completed');
    const attempts = await w.closedAttempts(id);
    expect(attempts.map((a) => [a.channelId, a.status, a.errorKind])).toEqual([
      ['down', 'failed', 'transient'],
      ['up', 'completed', null],
    ]);
  });

  it('a result that cannot be stored ends in no_result with a refund', async () => {
    // Make the storage root a file: every write fails with ENOTDIR.
    const root = `${w.app.ctx.config.DATA_DIR}/files`;
    fs.rmSync(root, { recursive: true, force: true });
    fs.mkdirSync(w.app.ctx.config.DATA_DIR, { recursive: true });
    fs.writeFileSync(root, 'not a directory');
    const id = await w.submit('a tower');
    const t = await w.settled(id, 20_000);
    expect(t).toMatchObject({ status: 'failed', errorCode: 'no_result', retryable: true });
    expect(await w.db.ledgerEntry.count({ where: { taskId: id, kind: 'refund' } })).toBe(1);
    fs.rmSync(root);
  });
});
