// Large results, the structural half (the memory half is the benchmark's `large-results`
// section): a video result of hundreds of MiB goes from the upstream through download.ts into disk
// storage byte for byte, several at once, and one over the video byte cap fails the task without
// leaving a partial file behind.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ledgerDiscrepancies } from '@mediagen/db';
import { mp4File, paddedBytes, paddedMp4 } from '@mediagen/provider-sim';
import { InProcess, startInProcess } from './in-process';

jest.setTimeout(120_000);

const MiB = 1024 * 1024;
const CAP_MIB = 160;

let w: InProcess;
beforeAll(async () => {
  w = await startInProcess(
    (base) => ({
      channels: [{ id: 'large', baseUrl: `${base}/ch/large`, apiKey: 'k', costOrder: 1, models: { 'video-a-h3': 'm' }, poll: { firstMs: 50, minMs: 50, maxMs: 200 } }],
    }),
    { RESULT_MAX_VIDEO_BYTES: String(CAP_MIB * MiB) },
  );
});
afterAll(async () => {
  expect(await ledgerDiscrepancies(w.db)).toEqual([]);
  await w.stop();
});

/** sha256 and size of what the simulator serves for a 2 s 480p 16:9 render of `mib` MiB. */
async function source(mib: number): Promise<{ bytes: number; sha256: string }> {
  const { head, padding } = paddedMp4(mp4File('16:9', '480p', 2), mib * MiB);
  const h = createHash('sha256');
  for await (const c of paddedBytes(head, padding)) h.update(c);
  return { bytes: head.length + padding, sha256: h.digest('hex') };
}

async function stored(file: string): Promise<{ bytes: number; sha256: string }> {
  const h = createHash('sha256');
  for await (const c of fs.createReadStream(file)) h.update(c as Buffer);
  return { bytes: fs.statSync(file).size, sha256: h.digest('hex') };
}

const resultFile = (taskId: string) => path.join(w.dataDir, 'files', 'results', taskId, '0.mp4');

it('stores concurrent 150 MiB results whole: same size and bytes as the upstream served', async () => {
  const ids = await Promise.all([0, 1, 2].map(() => w.submit('a long take #sim:delay=50 #sim:result-mib=150')));
  for (const id of ids) expect(await w.settled(id, 90_000)).toMatchObject({ status: 'completed' });
  const want = await source(150);
  expect(want.bytes).toBeGreaterThan(150 * MiB - 1);
  for (const id of ids) expect(await stored(resultFile(id))).toEqual(want);
  // Only the result (its name says its type: no sidecar): no temporary file of the download is left.
  for (const id of ids) expect(fs.readdirSync(path.dirname(resultFile(id))).sort()).toEqual(['0.mp4']);
});

it('a result over the video byte cap fails the task with no_result and leaves no partial file', async () => {
  const id = await w.submit(`too long #sim:delay=50 #sim:result-mib=${CAP_MIB + 20}`);
  expect(await w.settled(id, 90_000)).toMatchObject({ status: 'failed', errorCode: 'no_result' });
  const dir = path.dirname(resultFile(id));
  expect(fs.existsSync(dir) ? fs.readdirSync(dir) : []).toEqual([]);
});
