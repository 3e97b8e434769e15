// Reference URLs served by a local host (ALLOW_PRIVATE_MEDIA_URLS on): durations of real files,
// bytes read, and the 400s for unreadable, mislabelled and over-budget references.

import { AppError } from '@mediagen/errors';
import { inspectReferences, type MediaPolicy } from '../src';
import { startMediaServer, urlRef, fixture, type MediaServer } from './media-server';

let srv: MediaServer;
beforeAll(async () => (srv = await startMediaServer()));
afterAll(() => srv.close());

const policy: MediaPolicy = { allowPrivate: true, timeoutMs: 5000, maxBytesPerRef: 8 * 1024 * 1024, maxRedirects: 3 };

async function refusal(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(() => null, (err: unknown) => err);
  expect(e).toBeInstanceOf(AppError);
  const err = e as AppError;
  expect(err.status).toBe(400);
  expect(err.code).toBe('invalid_media');
  return err;
}

describe('durations of reference files over HTTP', () => {
  test.each([
    ['video', 'video-1s.mp4', 1],
    ['video', 'video-3s.mp4', 3],
    ['video', 'video-12.5s.mp4', 12.5],
    ['video', 'video-31s.mp4', 31],
    ['video', 'video-3s-moov-at-end.mp4', 3],
    ['video', 'video-4s-with-audio.mp4', 4],
    ['video', 'video-2s.webm', 2],
    ['audio', 'audio-2s.mp3', 2.16],
    ['audio', 'audio-16s.mp3', 16.2],
    ['audio', 'audio-1.5s.wav', 1.5],
    ['audio', 'audio-3s.m4a', 3],
    ['audio', 'audio-2.5s.ogg', 2.5],
    ['audio', 'video-4s-with-audio.mp4', 4],
  ] as const)('%s %s measures %p s', async (kind, name, seconds) => {
    const { measured } = await inspectReferences([urlRef(kind, `${srv.origin}/files/${name}`)], policy);
    const got = kind === 'video' ? measured.videoSeconds : measured.audioSeconds;
    expect(got).toEqual([seconds]);
  });

  test('several references keep request order, each list per kind', async () => {
    const refs = [
      urlRef('video', `${srv.origin}/files/video-12.5s.mp4`, 'media[0].url'),
      urlRef('audio', `${srv.origin}/files/audio-1.5s.wav`, 'media[1].url'),
      urlRef('image', `${srv.origin}/files/image.png`, 'media[2].url'),
      urlRef('video', `${srv.origin}/files/video-1s.mp4`, 'media[3].url'),
      urlRef('audio', `${srv.origin}/files/audio-3s.m4a`, 'media[4].url'),
    ];
    const r = await inspectReferences(refs, policy);
    expect(r.measured).toEqual({ videoSeconds: [12.5, 1], audioSeconds: [1.5, 3] });
    expect(r.inline).toEqual([]);
  });
});
