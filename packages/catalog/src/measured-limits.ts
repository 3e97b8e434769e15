// Limits that need the reference files' real lengths (measured by packages/media after parse*):
// video-b's reference second totals and the lip-sync audio/output lengths.
import { invalid } from '@mediagen/errors';
import type { MeasuredMedia, MediaRef, TaskSpec, VideoTaskSpec } from './types';
import { MODELS, VideoModelInfo } from './models';
import { LIP_SYNC_MAX_AUDIO_SECONDS } from './video-a-modes';
import { pickOffer } from './video-b-rules';

/**
 * Containers carry encoder padding (MP3 frames, AAC priming: tens of milliseconds), so a clip cut
 * at exactly 15 s often measures 15.03 s. Lengths within this much of a whole second count as
 * that second, for billing and for limits alike, in the client's favour.
 */
export const MEASURE_TOLERANCE_MS = 100;
const toMs = (seconds: number): number => Math.round(seconds * 1000);

/** Whole seconds "started" by a measured length (after the padding tolerance). */
export const ceilSeconds = (seconds: number): number => Math.max(0, Math.ceil((toMs(seconds) - MEASURE_TOLERANCE_MS) / 1000));

/** True when a measured length (or total) is over a limit in whole seconds, beyond the tolerance. */
export const overLimit = (seconds: number, maxSeconds: number): boolean => toMs(seconds) > maxSeconds * 1000 + MEASURE_TOLERANCE_MS;

export const sumSeconds = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
const itemPath = (ref: MediaRef): string => ref.path.replace(/\.url$/, '');

/** Programming errors of the caller, not client errors: the measurements must match the request. */
export function assertMeasuredMatches(spec: VideoTaskSpec, measured: MeasuredMedia): void {
  const videos = spec.media.filter((m) => m.kind === 'video').length;
  const audio = spec.media.filter((m) => m.kind === 'audio').length;
  if (measured.videoSeconds.length !== videos || measured.audioSeconds.length !== audio) {
    throw new Error(`measured media does not match the request: ${videos} videos / ${audio} audio expected`);
  }
  for (const s of [...measured.videoSeconds, ...measured.audioSeconds]) {
    if (!Number.isFinite(s) || s < 0) throw new Error(`measured duration ${s} is not a length in seconds`);
  }
}

/** Lip-sync output: the audio's started seconds, shortened by `duration` when sent (never lengthened). */
export function lipSyncOutputSeconds(spec: VideoTaskSpec, measured: MeasuredMedia): number {
  const audio = ceilSeconds(measured.audioSeconds[0] ?? 0);
  return spec.duration === null ? audio : Math.min(audio, spec.duration);
}

function checkTotal(refs: MediaRef[], seconds: number[], max: number, what: string): void {
  let total = 0;
  refs.forEach((ref, i) => {
    total += seconds[i];
    if (overLimit(total, max)) {
      throw invalid(itemPath(ref), `${what} total ${Math.round(total * 1000) / 1000} s with this file; the maximum is ${max} s in total`);
    }
  });
}

export function checkMeasuredLimits(spec: TaskSpec, measured: MeasuredMedia): void {
  if (spec.type !== 'video') return;
  assertMeasuredMatches(spec, measured);
  const model = MODELS[spec.model] as VideoModelInfo;
  const videos = spec.media.filter((m) => m.kind === 'video');
  const audio = spec.media.filter((m) => m.kind === 'audio');

  if (model.family === 'video-b') {
    const offer = pickOffer(model, spec.resolution!, spec.tier);
    checkTotal(videos, measured.videoSeconds, offer.maxRefSeconds.video, 'reference videos');
    checkTotal(audio, measured.audioSeconds, offer.maxRefSeconds.audio, 'reference audio');
  }

  if (spec.refMode === 'lip-sync') {
    const seconds = measured.audioSeconds[0];
    if (overLimit(seconds, LIP_SYNC_MAX_AUDIO_SECONDS)) {
      throw invalid(itemPath(audio[0]), `audio is ${seconds} s; lip-sync takes audio up to ${LIP_SYNC_MAX_AUDIO_SECONDS} s`);
    }
    if (ceilSeconds(seconds) === 0) throw invalid(itemPath(audio[0]), 'audio has no measurable length');
    const range = model.durations![spec.resolution!];
    const output = lipSyncOutputSeconds(spec, measured);
    if (output > range.max) {
      throw invalid('duration', `the video would be ${output} s (the audio's length); at ${spec.resolution} the maximum is ${range.max} s; send a shorter duration`);
    }
  }
}

