// Durations of ISO base media files (MP4, MOV, M4A) with mp4box.js. music-metadata 7 only reports
// the audio track of these, so a silent video would have no duration; mp4box reads the movie
// header (mvhd), whose duration already accounts for edit lists (encoder priming is cut), and
// lists video and audio tracks. appendBuffer() answers with the next file offset it needs, which
// is exactly a Range request: for an index at the end it jumps over the media data.

import type * as Mp4box from 'mp4box';
import type { Movie } from 'mp4box';
import type { ByteSource } from './byte-source';
import { MediaProblem, throwIfAborted } from './problem';

export interface ProbeResult {
  /** Seconds; null when the container does not say. */
  seconds: number | null;
  hasVideo: boolean;
  hasAudio: boolean;
}

const STEP = 64 * 1024;
// Enough hops for files with several top-level boxes (ftyp, free, mdat, moov, udta...).
const MAX_STEPS = 64;

export async function probeIsoBmff(source: ByteSource, signal: AbortSignal): Promise<ProbeResult> {
  // Loaded on the first probe, not at import (as music-metadata in probe-duration.ts).
  const { createFile, MP4BoxBuffer } = require('mp4box') as typeof Mp4box;
  const file = createFile();
  let info: Movie | undefined;
  let failure: string | undefined;
  file.onReady = (movie) => (info = movie);
  file.onError = (_module, message) => (failure = message);

  let pos = 0;
  for (let step = 0; !info && step < MAX_STEPS; step++) {
    throwIfAborted(signal);
    const data = await source.read(pos, STEP);
    if (data.length === 0) break;
    // mp4box keeps the buffer; hand it a copy it owns, with its file offset.
    const ab = MP4BoxBuffer.fromArrayBuffer(data.buffer.slice(data.byteOffset, data.byteOffset + data.length), pos);
    const last = source.size !== undefined && pos + data.length >= source.size;
    const next = quietly(() => file.appendBuffer(ab, last));
    if (failure) throw new MediaProblem(`the MP4/MOV structure is broken (${failure})`);
    if (info || last) break;
    if (typeof next !== 'number' || next <= pos) break; // no progress: nothing more it can use
    pos = next;
  }
  file.stop();
  if (!info) throw new MediaProblem('no movie header found: not a playable MP4/MOV file');

  let seconds = info.timescale > 0 && info.duration > 0 ? info.duration / info.timescale : null;
  // Fragmented MP4 may leave mvhd at 0 and give the total in mehd instead.
  if (seconds === null && info.fragment_duration && info.fragment_duration.den > 0) {
    seconds = info.fragment_duration.num / info.fragment_duration.den || null;
  }
  // The movie header is one number anyone can edit; the sample tables are what players play. A
  // header that claims less than the samples last is not believed: the samples' length
  // is used. Small differences are normal (edit lists cut encoder priming), hence the tolerance.
  const played = sampleTableSeconds(file);
  if (played !== null && (seconds === null || played > seconds + SAMPLE_TOLERANCE_S)) seconds = played;
  return { seconds, hasVideo: info.videoTracks.length > 0, hasAudio: info.audioTracks.length > 0 };
}

const SAMPLE_TOLERANCE_S = 0.5;

interface TrakLike {
  mdia?: { mdhd?: { timescale?: number }; minf?: { stbl?: { stts?: { sample_counts?: number[]; sample_deltas?: number[] } } } };
}

/** The longest track, by the sum of its sample durations (stts), in seconds; null when none says. */
export function sampleTableSeconds(file: unknown): number | null {
  const traks = ((file as { moov?: { traks?: TrakLike[] } }).moov?.traks ?? []) as TrakLike[];
  let longest: number | null = null;
  for (const t of traks) {
    const timescale = t.mdia?.mdhd?.timescale ?? 0;
    const stts = t.mdia?.minf?.stbl?.stts;
    if (!timescale || !stts?.sample_counts || !stts.sample_deltas) continue;
    let units = 0;
    for (let i = 0; i < stts.sample_counts.length; i++) units += stts.sample_counts[i] * (stts.sample_deltas[i] ?? 0);
    const s = units / timescale;
    if (Number.isFinite(s) && s > 0 && (longest === null || s > longest)) longest = s;
  }
  return longest;
}

/**
 * mp4box prints some parse errors of malformed files with console.error instead of onError, and
 * its log level cannot be raised above errors. Client garbage is not a server error worth a log
 * line; appendBuffer is synchronous, so nothing else runs while console.error is muted.
 */
function quietly<T>(fn: () => T): T {
  const original = console.error;
  console.error = () => undefined;
  try {
    return fn();
  } finally {
    console.error = original;
  }
}
