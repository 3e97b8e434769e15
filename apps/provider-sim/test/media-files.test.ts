// The simulator's videos are what was asked for: parsed back with mp4box (the library the service
// itself uses to read MP4 durations), not just generated.
import { createFile, MP4BoxBuffer, type Movie } from 'mp4box';
import { mp4File, mp4Of, paddedBytes, paddedMp4, videoSize } from '../src/media-files';
import { h264Stream } from '../src/h264-stream';

function parse(buf: Buffer): Movie {
  const file = createFile();
  let movie: Movie | undefined;
  let error: string | undefined;
  file.onReady = (m) => (movie = m);
  file.onError = (_mod, msg) => (error = msg);
  file.appendBuffer(MP4BoxBuffer.fromArrayBuffer(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length), 0), true);
  file.flush();
  if (error || !movie) throw new Error(`mp4box could not read the file: ${error ?? 'no moov'}`);
  return movie;
}

describe('generated MP4', () => {
  it.each([
    [5, '9:16', '480p', 480, 854],
    [15, '16:9', '768p', 1366, 768],
    [10, '16:9', '1080p', 1920, 1080],
    [4, '1:1', '720p', 720, 720],
    [8, '16:9', '4k', 3840, 2160],
  ])('%s s at %s %s is %sx%s with that duration', (seconds, ratio, resolution, width, height) => {
    const movie = parse(mp4File(ratio, resolution, seconds));
    expect(movie.duration / movie.timescale).toBeCloseTo(seconds, 3);
    expect(movie.videoTracks).toHaveLength(1);
    const t = movie.videoTracks[0];
    expect([t.video!.width, t.video!.height]).toEqual([width, height]);
    expect([t.track_width, t.track_height]).toEqual([width, height]);
    expect(t.codec).toMatch(/^avc1\.42c0/);
    expect(t.nb_samples).toBe(seconds * 24);
    expect(t.duration / t.timescale).toBeCloseTo(seconds, 3);
  });

  it('keeps a fractional length exactly (lip-sync follows the audio)', () => {
    const movie = parse(mp4Of(7.3, 854, 480));
    expect(movie.duration / movie.timescale).toBeCloseTo(7.3, 3);
    expect(movie.videoTracks[0].nb_samples).toBe(Math.ceil(7.3 * 24));
  });

  it('is small and cached by (duration, width, height)', () => {
    const a = mp4Of(15, 1920, 1080);
    expect(a.length).toBeLessThan(20_000);
    expect(mp4Of(15, 1920, 1080)).toBe(a);
    expect(mp4Of(14, 1920, 1080)).not.toBe(a);
  });

  it('sizes frames from the resolution name and the ratio', () => {
    expect(videoSize('9:16', '768P')).toEqual({ width: 768, height: 1366 });
    expect(videoSize('adaptive', '2K')).toEqual({ width: 2560, height: 1440 });
    expect(videoSize('21:9', '720p')).toEqual({ width: 1680, height: 720 });
  });
});

describe('H.264 stream', () => {
  it('writes parameter sets that declare the coded size with cropping', () => {
    const s = h264Stream(1366, 768);
    expect(s.sps[0] & 0x1f).toBe(7);
    expect(s.pps[0] & 0x1f).toBe(8);
    expect(s.idr[0] & 0x1f).toBe(5);
    expect(s.pFrame(1)[0] & 0x1f).toBe(1);
    // One byte per macroblock in the IDR frame (86 x 48 macroblocks), plus the slice header.
    expect(s.idr.length).toBeGreaterThanOrEqual(86 * 48);
    expect(s.idr.length).toBeLessThan(86 * 48 + 16);
    // No start-code emulation inside any NAL unit.
    for (const unit of [s.sps, s.pps, s.idr, s.pFrame(3)]) expect(unit.includes(Buffer.from([0, 0, 1]))).toBe(false);
  });
});

describe('padded MP4 (#sim:result-mib)', () => {
  const collect = async (gen: AsyncGenerator<Buffer>) => {
    const parts: Buffer[] = [];
    for await (const c of gen) parts.push(Buffer.from(c));
    return Buffer.concat(parts);
  };

  it('is exactly the size asked for and still the same video', async () => {
    const base = mp4File('16:9', '480p', 5);
    const total = 3 * 1024 * 1024 + 17;
    const { head, padding } = paddedMp4(base, total);
    const file = await collect(paddedBytes(head, padding));
    expect(file.length).toBe(total);
    const movie = parse(file);
    expect(movie.duration / movie.timescale).toBeCloseTo(5, 3);
    expect(movie.videoTracks[0].nb_samples).toBe(5 * 24);
    // The samples are where they were: only mdat's size grew, the padding follows the samples.
    expect(file.subarray(0, head.length).equals(head)).toBe(true);
    expect(file.subarray(base.length).every((b) => b === 0)).toBe(true);
  });

  it('builds only the head, and leaves a file at least that large as it is', () => {
    const base = mp4File('16:9', '480p', 5);
    const { head, padding } = paddedMp4(base, 500 * 1024 * 1024);
    expect(head.length).toBe(base.length);
    expect(padding).toBe(500 * 1024 * 1024 - base.length);
    expect(paddedMp4(base, base.length)).toEqual({ head: base, padding: 0 });
  });
});
