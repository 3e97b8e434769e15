// Damaged files from clients: flipped bytes, cut-off files, scrambled headers. Each must end in a
// measurement or a 400 naming the reference, quickly: never an exception of another kind, a 500
// or a hang. Deterministic (seeded) so a failure reproduces.

import { AppError } from '@mediagen/errors';
import { inspectReferences, type MediaPolicy } from '../src';
import { fixture, inlineRef } from './media-server';

const FILES: [string, string][] = [
  ['audio-2s.mp3', 'audio/mpeg'],
  ['audio-1.5s.wav', 'audio/wav'],
  ['audio-3s.m4a', 'audio/mp4'],
  ['audio-2.5s.ogg', 'audio/ogg'],
  ['video-2s.webm', 'audio/webm'],
  ['video-4s-with-audio.mp4', 'audio/mp4'],
];
const policy: MediaPolicy = { allowPrivate: false, timeoutMs: 1000, maxBytesPerRef: 1 << 20, maxRedirects: 3 };

function random(seed: number): () => number {
  return () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
}

function damage(data: Buffer, how: number, rnd: () => number): Buffer {
  const out = Buffer.from(data);
  const at = (limit: number) => Math.floor(rnd() * Math.min(limit, out.length));
  if (how === 0) for (let k = 0; k < 1 + at(20); k++) out[at(out.length)] = at(256); // anywhere
  if (how === 1) return out.subarray(0, 1 + at(out.length)); // cut off
  if (how === 2) for (let k = 0; k < 4; k++) out[at(200)] = at(256); // in the header
  return out;
}

test('150 damaged files: each is measured or refused with a 400, within the deadline', async () => {
  const rnd = random(42);
  const outcomes = { measured: 0, refused: 0 };
  for (let i = 0; i < 150; i++) {
    const [name, mime] = FILES[i % FILES.length];
    const ref = inlineRef('audio', mime, damage(fixture(name), i % 3, rnd), `media[${i}].url`);
    const t0 = Date.now();
    const result = await inspectReferences([ref], policy).then((r) => r, (e: unknown) => e);
    expect(Date.now() - t0).toBeLessThan(policy.timeoutMs + 400);
    if (result instanceof AppError) {
      expect(result.status).toBe(400);
      expect(result.details![0].path).toBe(ref.path);
      outcomes.refused++;
    } else {
      const { measured } = result as Awaited<ReturnType<typeof inspectReferences>>;
      expect(measured.audioSeconds[0]).toBeGreaterThan(0);
      expect(Number.isFinite(measured.audioSeconds[0])).toBe(true);
      outcomes.measured++;
    }
  }
  // Both outcomes occur: the damage is real, and not every damaged byte matters.
  expect(outcomes.refused).toBeGreaterThan(20);
  expect(outcomes.measured).toBeGreaterThan(20);
});
