// A 120 MiB video result streamed from the upstream through
// download.ts into a bucket (lib-storage multipart upload, 5 MiB parts, two in flight) arrives
// byte for byte, and a result over the cap leaves no object behind. The memory side is the
// benchmark's (large-results section, disk driver).
import { createHash } from 'node:crypto';
import { ledgerDiscrepancies } from '@mediagen/db';
import { mp4File, paddedBytes, paddedMp4 } from '@mediagen/provider-sim';
import { createStorage, type StorageDriver } from '@mediagen/storage';
import { LocalS3, startLocalS3 } from '@mediagen/storage/testing';
import { InProcess, startInProcess } from './in-process';

jest.setTimeout(120_000);

const MiB = 1024 * 1024;
const CAP_MIB = 130;

let s3: LocalS3;
let w: InProcess;
let storage: StorageDriver;
beforeAll(async () => {
  s3 = await startLocalS3();
  const env = Object.fromEntries(Object.entries(s3.settings).map(([k, v]) => [k, String(v)]));
  w = await startInProcess(
    (base) => ({
      channels: [{ id: 'large-s3', baseUrl: `${base}/ch/large-s3`, apiKey: 'k', costOrder: 1, models: { 'video-a-h3': 'm' }, poll: { firstMs: 50, minMs: 50, maxMs: 200 } }],
    }),
    { ...env, RESULT_MAX_VIDEO_BYTES: String(CAP_MIB * MiB) },
  );
  storage = createStorage({ DATA_DIR: w.dataDir, ...s3.settings });
});
afterAll(async () => {
  expect(await ledgerDiscrepancies(w.db)).toEqual([]);
  await w.stop();
  await s3.stop();
});

async function sha256(chunks: AsyncIterable<Buffer | string>): Promise<{ bytes: number; sha256: string }> {
  const h = createHash('sha256');
  let bytes = 0;
  for await (const c of chunks) {
    h.update(c);
    bytes += c.length;
  }
  return { bytes, sha256: h.digest('hex') };
}

it('stores a 120 MiB result in the bucket byte for byte', async () => {
  const id = await w.submit('a long take #sim:delay=50 #sim:result-mib=120');
  expect(await w.settled(id, 90_000)).toMatchObject({ status: 'completed' });
  const { head, padding } = paddedMp4(mp4File('16:9', '480p', 2), 120 * MiB);
  const want = await sha256(paddedBytes(head, padding));
  expect(await storage.stat(`results/${id}/0.mp4`)).toEqual({ bytes: 120 * MiB, contentType: 'video/mp4' });
  expect(await sha256(storage.createReadStream(`results/${id}/0.mp4`) as AsyncIterable<Buffer>)).toEqual(want);
});

it('a result over the cap fails with no_result and leaves no object', async () => {
  const id = await w.submit(`too long #sim:delay=50 #sim:result-mib=${CAP_MIB + 20}`);
  expect(await w.settled(id, 90_000)).toMatchObject({ status: 'failed', errorCode: 'no_result' });
  expect(await storage.stat(`results/${id}/0.mp4`)).toBeNull();
});
