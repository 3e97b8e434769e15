// Durations come from the media itself, not only from a header anyone can edit. An MP4
// whose movie header (mvhd) claims 1 s while its sample tables hold 3 s is measured at 3 s; an MP3
// whose Info/Xing header claims a quarter of its frames is measured by walking the frames.
import fs from 'node:fs';
import path from 'node:path';
import { BufferSource, measureMedia } from '../src';
import { mp3FrameSeconds } from '../src/mp3-frames';

const FIXTURES = path.resolve(__dirname, 'fixtures');
const signal = new AbortController().signal;

it('an MP4 whose mvhd lies is measured by its sample tables', async () => {
  const b = Buffer.from(fs.readFileSync(path.join(FIXTURES, 'video-3s.mp4')));
  const honest = await measureMedia(new BufferSource(b), 'video', signal);
  expect(honest.seconds).toBeCloseTo(3, 1);
  const i = b.indexOf('mvhd');
  expect(b[i + 4]).toBe(0); // version 0: 32-bit timescale and duration
  const timescale = b.readUInt32BE(i + 16);
  b.writeUInt32BE(timescale * 1, i + 20); // "1 second"
  const lying = await measureMedia(new BufferSource(b), 'video', signal);
  expect(lying.seconds).toBeGreaterThanOrEqual(2.9);
});

it('an MP3 whose Info header claims fewer frames is measured by its frames', async () => {
  const b = Buffer.from(fs.readFileSync(path.join(FIXTURES, 'audio-16s.mp3')));
  const honest = await measureMedia(new BufferSource(b), 'audio', signal);
  expect(honest.seconds).toBeGreaterThan(15);
  expect(honest.seconds).toBeLessThan(17.5);
  const walked = await mp3FrameSeconds(b);
  expect(walked).toBeGreaterThan(15);
  const tag = Math.max(b.indexOf('Xing'), b.indexOf('Info'));
  if (tag >= 0 && (b.readUInt32BE(tag + 4) & 1) === 1) {
    b.writeUInt32BE(Math.floor(b.readUInt32BE(tag + 8) / 4), tag + 8); // "a quarter of the frames"
    const lying = await measureMedia(new BufferSource(b), 'audio', signal);
    expect(lying.seconds).toBeGreaterThan(15);
  }
});

it('the frame walk stops at garbage and needs at least two frames', async () => {
  expect(await mp3FrameSeconds(Buffer.alloc(10_000, 0x41))).toBeNull();
});
