// A slow or silent host must not hold a submit: the whole inspection ends at policy.timeoutMs
// with a 400 naming the reference that was not read in time.

import { AppError } from '@mediagen/errors';
import { inspectReferences, type MediaPolicy } from '../src';
import { waitFor } from '../../../test/e2e/support/wait';
import { startMediaServer, urlRef, type MediaServer } from './media-server';

let srv: MediaServer;
beforeAll(async () => (srv = await startMediaServer()));
afterAll(() => srv.close());

const TIMEOUT = 800;
const MARGIN = 400; // scheduling slack on a loaded 2-core CI machine
const policy: MediaPolicy = { allowPrivate: true, timeoutMs: TIMEOUT, maxBytesPerRef: 8 * 1024 * 1024, maxRedirects: 3 };

async function timed(p: Promise<unknown>): Promise<{ err: AppError; ms: number }> {
  const t0 = Date.now();
  const err = await p.then(() => null, (e: unknown) => e);
  const ms = Date.now() - t0;
  expect(err).toBeInstanceOf(AppError);
  return { err: err as AppError, ms };
}

test.each([
  ['a server that never answers', '/hang/x.mp4'],
  ['a server that drips one byte every 200 ms', '/drip/video-3s.mp4'],
])('%s is cut at the deadline', async (_what, where) => {
  const { err, ms } = await timed(inspectReferences([urlRef('video', `${srv.origin}${where}`, 'media[2].url')], policy));
  expect(err.status).toBe(400);
  expect(err.details).toEqual([{ path: 'media[2].url', message: `timed out: not read within ${TIMEOUT} ms` }]);
  expect(ms).toBeGreaterThanOrEqual(TIMEOUT - 20);
  expect(ms).toBeLessThan(TIMEOUT + MARGIN);
});

test('one slow reference among good ones: only it is named, and the deadline is shared', async () => {
  const refs = [
    urlRef('video', `${srv.origin}/files/video-1s.mp4`, 'media[0].url'),
    urlRef('audio', `${srv.origin}/drip/audio-2s.mp3`, 'media[1].url'),
    urlRef('video', `${srv.origin}/hang/y.mp4`, 'media[2].url'),
    urlRef('image', `${srv.origin}/files/image.png`, 'media[3].url'),
  ];
  const { err, ms } = await timed(inspectReferences(refs, policy));
  expect(err.details!.map((d) => d.path)).toEqual(['media[1].url', 'media[2].url']);
  expect(ms).toBeLessThan(TIMEOUT + MARGIN);
});

test('the slow connections are closed after the deadline', async () => {
  await timed(inspectReferences([urlRef('video', `${srv.origin}/drip/video-12.5s.mp4`)], policy));
  // The server sees the connection go (the drip could go on for a minute): the inspector hung up
  // rather than leaving it open.
  const drip = srv.sent.get('/drip/video-12.5s.mp4')!;
  await waitFor(() => drip.closed === drip.requests, 5_000, 'the drip connection closed').catch(() => undefined);
  expect(drip).toMatchObject({ requests: 1, closed: 1 });
});

test('references queued behind the concurrency limit still finish under the same deadline', async () => {
  const refs = Array.from({ length: 6 }, (_, i) => urlRef('video', `${srv.origin}/hang/${i}.mp4`, `media[${i}].url`));
  const { err, ms } = await timed(inspectReferences(refs, { ...policy, concurrency: 2 }));
  expect(err.details).toHaveLength(6);
  expect(ms).toBeLessThan(TIMEOUT + MARGIN);
});
