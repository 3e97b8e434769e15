// Inline (data URI) references: decoded, checked against their bytes, audio measured, and handed
// back for storage with the type the bytes really have.

import { AppError } from '@mediagen/errors';
import { decodeDataUri, inspectReferences, sniffMime, canonicalMime, type MediaPolicy } from '../src';
import { fixture, inlineRef } from './media-server';

const policy: MediaPolicy = { allowPrivate: false, timeoutMs: 3000, maxBytesPerRef: 1 << 20, maxRedirects: 3 };

async function refusedWith(ref: ReturnType<typeof inlineRef>): Promise<string> {
  const e = await inspectReferences([ref], policy).then(() => null, (x: unknown) => x);
  expect(e).toBeInstanceOf(AppError);
  expect((e as AppError).status).toBe(400);
  expect((e as AppError).code).toBe('invalid_media');
  expect((e as AppError).details![0].path).toBe(ref.path);
  return (e as AppError).details![0].message;
}

describe('inline audio is measured', () => {
  test.each([
    ['audio-2s.mp3', 'audio/mpeg', 2.16, 'audio/mpeg', 'mp3'],
    ['audio-2s.mp3', 'audio/mp3', 2.16, 'audio/mpeg', 'mp3'],
    ['audio-16s.mp3', 'audio/mpeg', 16.2, 'audio/mpeg', 'mp3'],
    ['audio-1.5s.wav', 'audio/wav', 1.5, 'audio/wav', 'wav'],
    ['audio-1.5s.wav', 'audio/x-wav', 1.5, 'audio/wav', 'wav'],
    ['audio-3s.m4a', 'audio/mp4', 3, 'audio/mp4', 'm4a'],
    ['audio-3s.m4a', 'audio/x-m4a', 3, 'audio/mp4', 'm4a'],
    ['audio-3s.m4a', 'audio/aac', 3, 'audio/mp4', 'm4a'],
    ['audio-2.5s.ogg', 'audio/ogg', 2.5, 'audio/ogg', 'ogg'],
  ])('%s declared %s: %p s, stored as %s', async (name, declared, seconds, mime, ext) => {
    const bytes = fixture(name);
    const ref = inlineRef('audio', declared, bytes, 'media[1].url');
    const r = await inspectReferences([ref], policy);
    expect(r.measured).toEqual({ videoSeconds: [], audioSeconds: [seconds] });
    expect(r.inline).toHaveLength(1);
    expect(r.inline[0]).toMatchObject({ ref, mime, ext });
    expect(r.inline[0].bytes!.equals(bytes)).toBe(true);
  });
});

describe('inline images are checked against their bytes', () => {
  test.each([
    ['image.png', 'image/png', 'png'],
    ['image.jpg', 'image/jpeg', 'jpg'],
    ['image.jpg', 'image/jpg', 'jpg'],
    ['image.webp', 'image/webp', 'webp'],
  ])('%s declared %s is accepted', async (name, declared, ext) => {
    const r = await inspectReferences([inlineRef('image', declared, fixture(name), 'images[0]')], policy);
    expect(r.inline[0]).toMatchObject({ mime: canonicalMime(declared), ext });
    expect(r.measured).toEqual({ videoSeconds: [], audioSeconds: [] });
  });

  test.each([
    ['a PNG declared as JPEG', 'image', 'image/jpeg', 'image.png', 'declared image/jpeg, but the data is image/png'],
    ['a JPEG declared as WebP', 'image', 'image/webp', 'image.jpg', 'declared image/webp, but the data is image/jpeg'],
    ['an MP3 declared as an image', 'image', 'image/png', 'audio-2s.mp3', 'declared image/png, but the data is not an image (it is audio/mpeg)'],
    ['text declared as an image', 'image', 'image/png', 'not-a-video.mp4', 'declared image/png, but the data is not an image'],
    ['a PNG declared as audio', 'audio', 'audio/mpeg', 'image.png', 'declared audio/mpeg, but the data is an image (image/png)'],
    ['text declared as audio', 'audio', 'audio/mpeg', 'not-a-video.mp4', 'not an audio file'],
    ['WAV declared as MP3', 'audio', 'audio/mpeg', 'audio-1.5s.wav', 'declared audio/mpeg, but the data is audio/wav'],
    ['a video declared as audio/mp4', 'audio', 'audio/mp4', 'video-4s-with-audio.mp4', 'declared audio/mp4, but the data is video/mp4'],
    ['a silent video declared as audio', 'audio', 'audio/mp4', 'video-3s.mp4', 'not audio: the file has no audio track'],
  ] as const)('%s is refused', async (_what, kind, declared, name, message) => {
    expect(await refusedWith(inlineRef(kind, declared, fixture(name), 'media[4].url'))).toBe(message);
  });

  test('a GIF is not an accepted inline type (inline images are jpeg, png or webp)', async () => {
    const gif = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
    expect(await refusedWith(inlineRef('image', 'image/gif', gif))).toMatch(/image\/gif is not accepted inline/);
  });

  test('inline video is refused: videos come by URL only', async () => {
    expect(await refusedWith(inlineRef('video', 'video/mp4', fixture('video-1s.mp4')))).toMatch(/by https URL only/);
  });
});

describe('decodeDataUri', () => {
  test('decodes, tolerating wrapped lines', () => {
    const png = fixture('image.png');
    const b64 = png.toString('base64').replace(/(.{76})/g, '$1\r\n');
    const d = decodeDataUri(`data:image/PNG;base64,${b64}`);
    expect(d.mime).toBe('image/png');
    expect(d.bytes.equals(png)).toBe(true);
    expect(decodeDataUri('data:audio/webm;codecs=opus;base64,AAAA').mime).toBe('audio/webm');
  });

  test.each([
    ['data:image/png,abc', /base64/],
    ['data:;base64,AAAA', /not a data URI/],
    ['data:image/png;base64,AA$A', /not valid base64/],
    ['data:image/png;base64,A', /not valid base64/],
    ['data:image/png;base64,', /empty/],
    ['https://example.com/a.png', /not a data URI/],
  ])('%s is refused', (uri, why) => {
    expect(() => decodeDataUri(uri)).toThrow(why);
  });

  test('size is checked before decoding', () => {
    const big = `data:audio/mpeg;base64,${'A'.repeat(4 * 1024)}`; // 3 KiB decoded
    expect(() => decodeDataUri(big, 2048)).toThrow('inline file is larger than 2 KiB');
    expect(decodeDataUri(big, 3072).bytes.length).toBe(3072);
  });
});

describe('sniffMime', () => {
  test.each([
    ['image.png', 'image/png'], ['image.jpg', 'image/jpeg'], ['image.webp', 'image/webp'],
    ['audio-2s.mp3', 'audio/mpeg'], ['audio-1.5s.wav', 'audio/wav'], ['audio-3s.m4a', 'audio/mp4'],
    ['audio-2.5s.ogg', 'audio/ogg'], ['video-1s.mp4', 'video/mp4'], ['video-2s.webm', 'video/webm'],
    ['not-a-video.mp4', null],
  ])('%s is %s', (name, mime) => {
    expect(sniffMime(fixture(name))).toBe(mime);
  });

  test('short or empty input is unknown, never an exception', () => {
    expect(sniffMime(Buffer.alloc(0))).toBeNull();
    expect(sniffMime(Buffer.from([0xff]))).toBeNull();
    expect(sniffMime(Buffer.from('RIFF'))).toBeNull();
  });
});
