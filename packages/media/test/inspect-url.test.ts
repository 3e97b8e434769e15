// Reference URLs served by a local host (ALLOW_PRIVATE_MEDIA_URLS on): durations of real files,
// bytes read, and the 400s for unreadable, mislabelled and over-budget references.

import { AppError } from '@mediagen/errors';
import { inspectReferences, type MediaPolicy } from '../src';
import { waitFor } from '../../../test/e2e/support/wait';
import { startMediaServer, urlRef, fixture, type MediaServer } from './media-server';

let srv: MediaServer;
beforeAll(async () => (srv = await startMediaServer()));
afterAll(() => srv.close());
beforeEach(() => srv.sent.clear());

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

describe('reading only the bytes needed', () => {
  test('an MP4 with its index at the front costs one 64 KiB Range request', async () => {
    await inspectReferences([urlRef('video', `${srv.origin}/files/video-3s-large.mp4`)], policy);
    const s = srv.sent.get('/files/video-3s-large.mp4')!;
    expect(s.requests).toBe(1);
    expect(s.bytes).toBeLessThanOrEqual(64 * 1024);
    expect(fixture('video-3s-large.mp4').length).toBeGreaterThan(130 * 1024);
  });

  test('an MP4 with its index at the end is read by seeking over the media data', async () => {
    const tight = { ...policy, maxBytesPerRef: 100 * 1024 }; // less than the 132 KiB file
    const { measured } = await inspectReferences([urlRef('video', `${srv.origin}/files/video-3s-moov-at-end.mp4`)], tight);
    expect(measured.videoSeconds).toEqual([3]);
    const s = srv.sent.get('/files/video-3s-moov-at-end.mp4')!;
    expect(s.requests).toBe(2); // the head, then the moov box at the tail
    expect(s.bytes).toBeLessThan(fixture('video-3s-moov-at-end.mp4').length);
  });

  test('a server that ignores Range still works when the header is near the front', async () => {
    for (const name of ['video-1s.mp4', 'video-2s.webm', 'audio-2s.mp3', 'audio-1.5s.wav', 'audio-2.5s.ogg']) {
      const kind = name.startsWith('video') ? 'video' : 'audio';
      const r1 = await inspectReferences([urlRef(kind, `${srv.origin}/norange/${name}`)], policy);
      const r2 = await inspectReferences([urlRef(kind, `${srv.origin}/chunked/${name}`)], policy);
      expect(r1.measured).toEqual(r2.measured);
      expect([...r1.measured.videoSeconds, ...r1.measured.audioSeconds]).toHaveLength(1);
    }
  });

  test('without Range, an index beyond the byte budget is refused, not downloaded', async () => {
    const tight = { ...policy, maxBytesPerRef: 100 * 1024 };
    const err = await refusal(inspectReferences([urlRef('video', `${srv.origin}/norange/video-3s-moov-at-end.mp4`)], tight));
    expect(err.details).toEqual([{ path: 'media[0].url', message: 'the server ignores Range requests and the part needed lies beyond the first 100 KiB' }]);
  });

  test('an endless body is cut at maxBytesPerRef', async () => {
    const t0 = Date.now();
    const err = await refusal(inspectReferences([urlRef('video', `${srv.origin}/endless/x.mp4`)], { ...policy, maxBytesPerRef: 1024 * 1024 }));
    expect(err.details![0].message).toMatch(/beyond the first 1 MiB/);
    expect(Date.now() - t0).toBeLessThan(2000);
    // What the server managed to write before we hung up (it stops once the connection is gone):
    // the budget plus socket buffers.
    const endless = srv.sent.get('/endless/x.mp4')!;
    await waitFor(() => endless.closed === endless.requests, 5_000, 'the endless answer closed');
    expect(endless.bytes).toBeLessThan(8 * 1024 * 1024);
  });

  test('an image URL is checked from its first 4 KiB', async () => {
    for (const name of ['image.png', 'image.jpg', 'image.webp']) {
      await inspectReferences([urlRef('image', `${srv.origin}/files/${name}`)], policy);
    }
    const err = await refusal(inspectReferences([urlRef('image', `${srv.origin}/files/video-3s-large.mp4`, 'images[1]')], policy));
    expect(err.details).toEqual([{ path: 'images[1]', message: 'not an image (it is video/mp4); send jpeg, png, webp or gif' }]);
    expect(srv.sent.get('/files/video-3s-large.mp4')!.bytes).toBeLessThanOrEqual(4096 + 64 * 1024); // earlier test read 64 KiB
  });
});

describe('references that are refused with a 400 naming them', () => {
  const cases: [string, 'video' | 'audio' | 'image', string, RegExp][] = [
    ['404', 'video', '/status/404', /^not found \(HTTP 404\)$/],
    ['403', 'video', '/status/403', /access denied \(HTTP 403\)/],
    ['500', 'audio', '/status/500', /the server answered HTTP 500/],
    ['a text file named .mp4', 'video', '/files/not-a-video.mp4', /^not a video file$/],
    ['a picture sent as a video', 'video', '/files/image.png', /^not a video file \(it is image\/png\)$/],
    ['an MP3 sent as a video', 'video', '/files/audio-2s.mp3', /not a supported video \(it is audio\/mpeg\)/],
    ['an M4A sent as a video', 'video', '/files/audio-3s.m4a', /no video track/],
    ['a silent video sent as audio', 'audio', '/files/video-3s.mp4', /no audio track/],
    ['a picture sent as audio', 'audio', '/files/image.jpg', /^not an audio file \(it is image\/jpeg\)$/],
    ['a text file sent as an image', 'image', '/files/not-a-video.mp4', /^not an image; send/],
    ['an unreachable host', 'video', 'http://127.0.0.1:9/x.mp4', /could not be fetched \(connection refused\)/],
  ];
  test.each(cases)('%s', async (_what, kind, where, message) => {
    const url = where.startsWith('http') ? where : `${srv.origin}${where}`;
    const err = await refusal(inspectReferences([urlRef(kind, url, 'media[1].url')], policy));
    expect(err.details).toHaveLength(1);
    expect(err.details![0].path).toBe('media[1].url');
    expect(err.details![0].message).toMatch(message);
    expect(err.message).toBe(`media[1].url: ${err.details![0].message}`);
  });

  test('a truncated MP4 (index cut off) is refused', async () => {
    const err = await refusal(inspectReferences([urlRef('video', `${srv.origin}/cut/video-3s-moov-at-end.mp4`)], policy));
    expect(err.details![0].message).toBe('no movie header found: not a playable MP4/MOV file');
  });

  test('a truncated MP3 or WAV is refused or measured from its header, never a 500', async () => {
    for (const name of ['audio-2s.mp3', 'audio-1.5s.wav', 'audio-2.5s.ogg', 'video-2s.webm']) {
      const kind = name.startsWith('video') ? 'video' : 'audio';
      await inspectReferences([urlRef(kind, `${srv.origin}/cut/${name}`)], policy).catch((e) => {
        expect(e).toBeInstanceOf(AppError);
        expect((e as AppError).status).toBe(400);
      });
    }
  });

  test('every bad reference is listed, the good ones are not', async () => {
    const refs = [
      urlRef('video', `${srv.origin}/files/video-1s.mp4`, 'media[0].url'),
      urlRef('video', `${srv.origin}/status/404`, 'media[1].url'),
      urlRef('audio', `${srv.origin}/files/image.png`, 'media[2].url'),
    ];
    const err = await refusal(inspectReferences(refs, policy));
    expect(err.details!.map((d) => d.path)).toEqual(['media[1].url', 'media[2].url']);
    expect(err.message).toMatch(/^2 reference files were refused: media\[1\]\.url: not found/);
  });

  test('redirects are followed up to maxRedirects', async () => {
    const to = (u: string) => `${srv.origin}/redirect/x?to=${encodeURIComponent(u)}`;
    const once = to('/files/video-12.5s.mp4');
    expect((await inspectReferences([urlRef('video', once)], policy)).measured.videoSeconds).toEqual([12.5]);
    const four = to(to(to(to('/files/video-1s.mp4'))));
    const err = await refusal(inspectReferences([urlRef('video', four)], policy));
    expect(err.details![0].message).toBe('more than 3 redirects');
  });
});
