// The memory of URL snapshots in flight is bounded per process: past the budget a submit is
// answered 503 service_unavailable with Retry-After (the service is busy; the file is fine), and
// every reservation is given back when the inspection ends, whatever its outcome.
import { inspectReferences, SnapshotBudget, DEFAULT_MEDIA_POLICY } from '../src';
import { startMediaServer, urlRef, fixture, type MediaServer } from './media-server';

let srv: MediaServer;
beforeAll(async () => {
  srv = await startMediaServer();
});
afterAll(() => srv.close());

const policy = (budget: SnapshotBudget) => ({ ...DEFAULT_MEDIA_POLICY, allowPrivate: true, snapshot: true, snapshotBudget: budget });

it('references that would take more than the budget get 503 with Retry-After, and the budget is given back', async () => {
  const size = fixture('video-3s-large.mp4').length; // ~135 KB
  const budget = new SnapshotBudget(Math.floor(size * 1.5));
  const refs = [urlRef('video', `${srv.origin}/files/video-3s-large.mp4`, 'media[0].url'), urlRef('video', `${srv.origin}/files/video-3s-moov-at-end.mp4`, 'media[1].url')];
  const err = await inspectReferences(refs, policy(budget)).then(() => null, (e: { code?: string; status?: number; headers?: Record<string, string> }) => e);
  expect(err).toMatchObject({ code: 'service_unavailable', status: 503 });
  expect(err?.headers?.['Retry-After']).toBe('2');
  expect(budget.inUse).toBe(0);
  // One at a time fits, and is given back too.
  const ok = await inspectReferences(refs.slice(0, 1), policy(budget));
  expect(ok.inline[0].bytes!.length).toBe(size);
  expect(budget.inUse).toBe(0);
});
