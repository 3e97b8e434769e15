// Measures a reference video or audio file: what it is and how long it plays. The first bytes
// decide the family (sniff.ts); a parser library then reads the container's structure (tracks,
// codec): mp4box.js for MP4/MOV/M4A (probe-mp4.ts), music-metadata for everything else (MP3,
// WAV, Ogg, FLAC, AAC, AIFF, WebM/Matroska). The duration then comes from the media itself where
// a header could lie: MP4 sample tables, MP3 frames (mp3-frames.ts), and for WAV,
// AIFF, ADTS AAC, FLAC, Ogg and WebM/Matroska a walk of the data (played-length.ts).
// music-metadata's own `duration: true` scan was not enough: for these formats it still reports
// the header's number (STREAMINFO, the data chunk's size field, COMM's frame count, the last
// granule, Segment Info), or for ADTS counts 1024 samples per frame and restarts after junk.

import type * as MusicMetadata from 'music-metadata';
import type { MediaKind } from '@mediagen/catalog';
import type { ByteSource } from './byte-source';
import { MediaProblem } from './problem';
import { probeIsoBmff, type ProbeResult } from './probe-mp4';
import { isIsoBmff, isMatroska, sniffMime } from './sniff';
import { SourceTokenizer } from './source-tokenizer';
import { mp3FrameSeconds } from './mp3-frames';
import { adtsSeconds, aiffSeconds, flacSeconds, matroskaSeconds, oggSeconds, wavSeconds } from './played-length';
import { formatBytes } from './data-uri';

export interface Measured {
  /** Canonical mime type of what the bytes really are (audio-only MP4/WebM become audio/*). */
  mime: string;
  /** Play time in seconds, rounded to the millisecond. */
  seconds: number;
}

/** Header and frames may differ by a frame or two (encoder delay, the Info frame itself). */
const FRAME_TOLERANCE_S = 0.5;
const VIDEO_TRACK = 1; // music-metadata's TrackType for Matroska tracks
const AUDIO_TRACK = 2;

/** Reads what a `kind` reference must be; throws MediaProblem when it is something else. */
export async function measureMedia(source: ByteSource, kind: 'video' | 'audio', signal: AbortSignal): Promise<Measured> {
  const sniffed = sniffMime(await source.read(0, 64));
  if (!sniffed || sniffed.startsWith('image/')) throw new MediaProblem(`not ${article(kind)} file${sniffed ? ` (it is ${sniffed})` : ''}`);
  if (kind === 'video' && !isIsoBmff(sniffed) && !isMatroska(sniffed)) {
    throw new MediaProblem(`not a supported video (it is ${sniffed}); send MP4, MOV or WebM`);
  }

  const probe = isIsoBmff(sniffed) ? await probeIsoBmff(source, signal) : await probeWithMusicMetadata(source, sniffed, signal);
  if (sniffed === 'audio/mpeg') {
    // Frames, not the Xing/Info header, decide; within the byte budget.
    const walked = await mp3FrameSeconds(await source.read(0, Number.MAX_SAFE_INTEGER), signal);
    if (walked !== null && (probe.seconds === null || walked > probe.seconds + FRAME_TOLERANCE_S)) probe.seconds = walked;
  }
  const walk = PLAYED[sniffed];
  if (walk) {
    // The data, not the header, decides: a header claiming 1 s over 30 s of frames is
    // billed 30 s, a header claiming 30 s over 1 s of frames 1 s. The whole file is walked.
    const all = await source.read(0, Number.MAX_SAFE_INTEGER);
    if (source.size === undefined || all.length < source.size) {
      throw new MediaProblem(`the file is too large to measure (over ${formatBytes(all.length)} read)`);
    }
    const played = await walk(all, signal);
    if (played === null || !Number.isFinite(played) || played <= 0) {
      throw new MediaProblem(`the ${kind}'s duration could not be measured from its data`);
    }
    probe.seconds = played;
  }
  if (kind === 'video' && !probe.hasVideo) throw new MediaProblem('not a video: the file has no video track');
  if (kind === 'audio' && !probe.hasAudio) throw new MediaProblem('not audio: the file has no audio track');
  if (probe.seconds === null || !Number.isFinite(probe.seconds) || probe.seconds <= 0) {
    throw new MediaProblem(`the ${kind}'s duration could not be determined from its header`);
  }
  return { mime: refineMime(sniffed, probe), seconds: Math.round(probe.seconds * 1000) / 1000 };
}

/** Formats whose play time is measured by walking their data (played-length.ts). */
const PLAYED: Record<string, (b: Buffer, signal: AbortSignal) => number | null | Promise<number | null>> = {
  'audio/wav': (b) => wavSeconds(b),
  'audio/aiff': (b) => aiffSeconds(b),
  'audio/aac': adtsSeconds,
  'audio/flac': flacSeconds,
  'audio/ogg': oggSeconds,
  'video/webm': matroskaSeconds,
  'video/x-matroska': matroskaSeconds,
};

async function probeWithMusicMetadata(source: ByteSource, mime: string, signal: AbortSignal): Promise<ProbeResult> {
  // music-metadata's Matroska parser needs the file size before it starts. A server that sends
  // neither Content-Range nor Content-Length leaves reading to the end (within budget) as the way.
  // The read is capped by the source's byte budget (byte-source.ts): a file larger than that is refused.
  if (source.size === undefined && isMatroska(mime)) await source.read(0, Number.MAX_SAFE_INTEGER);
  const tokenizer = new SourceTokenizer(source, signal, { mimeType: mime });
  // duration: true lets the parser count MP3 frames when there is no Xing/VBRI header; the
  // byte budget still bounds how far it reads. Covers are skipped: they are large and unused.
  // Loaded on the first measure, not at import: a process that never measures a reference file
  // does not hold music-metadata's ~80 modules (docs/benchmark.md, "Gateway RSS on Node 24").
  const { parseFromTokenizer } = require('music-metadata') as typeof MusicMetadata;
  const meta = await parseFromTokenizer(tokenizer, { duration: true, skipCovers: true });
  const tracks = meta.format.trackInfo ?? [];
  const hasVideo = tracks.some((t) => t.type === VIDEO_TRACK || t.video !== undefined);
  const hasAudio = tracks.length > 0
    ? tracks.some((t) => t.type === AUDIO_TRACK || t.audio !== undefined)
    : Boolean(meta.format.codec || meta.format.sampleRate);
  return { seconds: meta.format.duration ?? null, hasVideo, hasAudio };
}

/** An M4A or audio-only WebM is audio whatever its container brand says; providers want that. */
function refineMime(sniffed: string, probe: ProbeResult): string {
  if (probe.hasVideo) return sniffed === 'audio/mp4' ? 'video/mp4' : sniffed;
  if (sniffed === 'video/mp4' || sniffed === 'video/quicktime') return 'audio/mp4';
  if (isMatroska(sniffed)) return 'audio/webm';
  return sniffed;
}

const article = (kind: MediaKind): string => (kind === 'audio' ? 'an audio' : `a ${kind}`);

export { measureMedia as probeDuration };
