// The submit path's one call: read every reference file concurrently under one deadline, measure
// reference video/audio durations (billing and caps depend on them), verify each
// file is what it claims, and hand back inline files decoded for storage. Nothing is stored here:
// the gateway stores `inline` only after the task is created, so a refused submit leaves no file.

import { EndOfStreamError } from 'strtok3/lib/core';
import { AppError, type ErrorDetail } from '@mediagen/errors';
import { MAX_INLINE_FILE_BYTES, type MeasuredMedia, type MediaRef } from '@mediagen/catalog';
import { BufferSource, HttpSource, httpStatusProblem } from './byte-source';
import { BodyReader } from './body-reader';
import { SnapshotBudget, SnapshotBudgetExhausted, sharedSnapshotBudget } from './snapshot-budget';
import { safeFetch } from './safe-fetch';
import { formatBytes } from './data-uri';
import { decodeDataUri } from './data-uri';
import { DEFAULT_MEDIA_POLICY, type MediaPolicy, type StagedInline } from './policy';
import { DeadlineExceeded, MediaProblem, isMediaProblem } from './problem';
import { measureMedia } from './probe-duration';
import { canonicalMime, extensionFor, sniffMime } from './sniff';
import { imageSize } from './image-size';
import { CPU_TURN_CHARS, cpuTurn } from './cpu-turn';

export interface DecodedInline {
  ref: MediaRef;
  /** What the bytes are (sniffed, canonical), which is also what was declared. */
  mime: string;
  /** The file's bytes, for the caller to store; absent when it is stored already (`stored`). */
  bytes?: Buffer;
  /** A data URI written to storage while the request arrived: where, and its size. */
  stored?: { key: string; bytes: number };
  ext: string;
  /** Images: the size their header gives (read from these very bytes). */
  width?: number;
  height?: number;
}

export interface Inspection {
  measured: MeasuredMedia;
  inline: DecodedInline[];
}

interface Checked {
  seconds?: number;
  inline?: DecodedInline;
}

const INLINE_IMAGES = new Set(['image/jpeg', 'image/png', 'image/webp']);
const URL_IMAGES = new Set([...INLINE_IMAGES, 'image/gif']);
// Both labels are used for AAC in an MP4 container; the rest must match exactly.
const SAME_AUDIO: Record<string, string[]> = { 'audio/aac': ['audio/mp4'], 'audio/mp4': ['audio/aac'] };

/**
 * `cancel` (optional) stops the inspection early, e.g. when the client went away: its fetches are
 * dropped at once and whatever the caller holds for it (an inspection slot) is given back.
 */
export async function inspectReferences(refs: MediaRef[], policy: MediaPolicy, cancel?: AbortSignal): Promise<Inspection> {
  const p: MediaPolicy = { ...DEFAULT_MEDIA_POLICY, ...policy };
  const controller = new AbortController();
  const timeout = new DeadlineExceeded(`timed out: not read within ${p.timeoutMs} ms`);
  let fire: (reason: DeadlineExceeded) => void = () => {};
  // Settles at the deadline even if a parser awaited something that ignores the abort signal.
  const deadline = new Promise<never>((_, reject) => (fire = reject));
  deadline.catch(() => undefined);
  const stop = (reason: DeadlineExceeded) => {
    controller.abort(reason);
    fire(reason);
  };
  const timer = setTimeout(() => stop(timeout), p.timeoutMs);
  const budget = p.snapshotBudget ?? sharedSnapshotBudget;
  const reserved = { bytes: 0 };
  const onCancel = () => stop(new DeadlineExceeded('not read: the request was cancelled'));
  if (cancel?.aborted) onCancel();
  else cancel?.addEventListener('abort', onCancel, { once: true });

  try {
    const results = await mapLimited(refs, p.concurrency ?? 8, (ref) =>
      Promise.race([checkRef(ref, p, controller.signal, budget, reserved), deadline]).then(
        (ok): { ok: Checked } => ({ ok }),
        (err: unknown): { err: ErrorDetail; busy?: boolean } => ({ err: { path: ref.path, message: problemText(err, ref) }, busy: err instanceof SnapshotBudgetExhausted }),
      ),
    );
    if (results.some((r) => 'busy' in r && r.busy)) {
      throw new AppError('service_unavailable', 'The service is reading too many reference files at once; retry shortly', undefined, undefined, { 'Retry-After': '2' });
    }
    const details = results.flatMap((r) => ('err' in r ? [r.err] : []));
    if (details.length) throw refusal(details);

    const measured: MeasuredMedia = { videoSeconds: [], audioSeconds: [] };
    const inline: DecodedInline[] = [];
    refs.forEach((ref, i) => {
      const r = (results[i] as { ok: Checked }).ok;
      if (ref.kind === 'video') measured.videoSeconds.push(r.seconds!);
      if (ref.kind === 'audio') measured.audioSeconds.push(r.seconds!);
      if (r.inline) inline.push(r.inline);
    });
    return { measured, inline };
  } finally {
    clearTimeout(timer);
    cancel?.removeEventListener('abort', onCancel);
    budget.give(reserved.bytes);
    controller.abort(timeout); // stops whatever is still reading after a refusal
  }
}

interface Reserved {
  bytes: number;
}

async function checkRef(ref: MediaRef, p: MediaPolicy, signal: AbortSignal, budget: SnapshotBudget, reserved: Reserved): Promise<Checked> {
  const staged = ref.source === 'inline' ? p.staged?.get(ref.url) : undefined;
  if (staged) return checkStaged(ref, staged);
  return ref.source === 'inline' ? checkInline(ref, signal) : checkUrlRef(ref, p, signal, budget, reserved);
}

/** The same checks as checkInline on a stored data URI's first bytes (only images are stored while they arrive). */
function checkStaged(ref: MediaRef, staged: StagedInline): Checked {
  if (ref.kind !== 'image') throw new MediaProblem('only images are accepted as data URIs of this size');
  if (!staged.key) throw new MediaProblem('inline file could not be stored');
  if (staged.bytes === 0) throw new MediaProblem('inline file is empty');
  const declared = canonicalMime(ref.mime ?? staged.declaredMime);
  const sniffed = sniffMime(staged.head);
  checkInlineImage(declared, sniffed);
  return { inline: { ref, mime: sniffed!, ext: extensionFor(sniffed!), stored: { key: staged.key, bytes: staged.bytes } } };
}

function checkInlineImage(declared: string, sniffed: string | null): void {
  if (!sniffed || !sniffed.startsWith('image/')) throw new MediaProblem(`declared ${declared}, but the data is not an image${sniffed ? ` (it is ${sniffed})` : ''}`);
  if (!INLINE_IMAGES.has(sniffed)) throw new MediaProblem(`${sniffed} is not accepted inline; send jpeg, png or webp`);
  if (sniffed !== declared) throw new MediaProblem(`declared ${declared}, but the data is ${sniffed}`);
}

async function checkInline(ref: MediaRef, signal: AbortSignal): Promise<Checked> {
  if (ref.kind === 'video') throw new MediaProblem('videos are accepted by https URL only, not as data URIs');
  // Decoding megabytes of base64 is one long step: large ones take their own turn of the loop.
  const release = ref.url.length >= CPU_TURN_CHARS ? await cpuTurn() : undefined;
  let declaredRaw: string;
  let bytes: Buffer;
  try {
    ({ mime: declaredRaw, bytes } = decodeDataUri(ref.url, MAX_INLINE_FILE_BYTES));
  } finally {
    release?.();
  }
  const declared = canonicalMime(ref.mime ?? declaredRaw);
  const sniffed = sniffMime(bytes);

  if (ref.kind === 'image') {
    checkInlineImage(declared, sniffed);
    return { inline: { ref, mime: sniffed!, bytes, ext: extensionFor(sniffed!) } };
  }

  if (sniffed?.startsWith('image/')) throw new MediaProblem(`declared ${declared}, but the data is an image (${sniffed})`);
  const m = await measureMedia(new BufferSource(bytes), 'audio', signal);
  if (m.mime !== declared && !(SAME_AUDIO[declared] ?? []).includes(m.mime)) {
    throw new MediaProblem(`declared ${declared}, but the data is ${m.mime}`);
  }
  return { seconds: m.seconds, inline: { ref, mime: m.mime, bytes, ext: extensionFor(m.mime) } };
}

/**
 * The whole file behind a URL, at most `max` bytes (more is refused, not cut). Its bytes are
 * reserved from the process's snapshot budget as they arrive. A known length is read into one
 * buffer allocated up front (no join of tens of MB in one step on the event loop).
 */
async function downloadWhole(url: string, p: MediaPolicy, signal: AbortSignal, max: number, budget: SnapshotBudget, reserved: Reserved): Promise<Buffer> {
  const { res } = await safeFetch(url, p, { signal });
  if (res.statusCode !== 200) {
    res.destroy();
    throw new MediaProblem(httpStatusProblem(res.statusCode ?? 0));
  }
  const declared = res.headers['content-length'] !== undefined ? Number(res.headers['content-length']) : NaN;
  if (Number.isFinite(declared) && declared > max) {
    res.destroy();
    throw new MediaProblem(`the file is larger than ${formatBytes(max)}`);
  }
  const reader = new BodyReader(res, signal);
  const tooLarge = () => new MediaProblem(`the file is larger than ${formatBytes(max)}`);
  try {
    const known = Number.isSafeInteger(declared) && declared >= 0;
    let buf: Buffer = known ? Buffer.allocUnsafe(declared) : Buffer.alloc(0);
    const parts: Buffer[] = [];
    let have = 0;
    for (let piece = await reader.pull(); piece; piece = await reader.pull()) {
      if (have + piece.length > max) throw tooLarge();
      budget.take(piece.length);
      reserved.bytes += piece.length;
      if (known) {
        if (have + piece.length > declared) throw new MediaProblem('the server sent more bytes than its Content-Length');
        piece.copy(buf, have);
      } else parts.push(piece);
      have += piece.length;
    }
    if (known && have < declared) throw new MediaProblem('the connection was cut while reading it');
    if (!known) buf = await joinPieces(parts, have);
    if (buf.length === 0) throw new MediaProblem('the file is empty');
    return buf;
  } finally {
    reader.close();
  }
}

/** Joins pieces into one buffer a few MiB at a time, with a turn of the event loop between. */
async function joinPieces(parts: Buffer[], total: number): Promise<Buffer> {
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  let sinceTurn = 0;
  for (const part of parts) {
    part.copy(out, at);
    at += part.length;
    sinceTurn += part.length;
    if (sinceTurn >= 4 * 1024 * 1024) {
      sinceTurn = 0;
      await new Promise<void>((r) => setImmediate(r));
    }
  }
  return out;
}

function urlImageMime(bytes: Buffer): string {
  const sniffed = sniffMime(bytes.subarray(0, 64));
  if (!sniffed || !URL_IMAGES.has(sniffed)) {
    throw new MediaProblem(`not an image${sniffed ? ` (it is ${sniffed})` : ''}; send jpeg, png, webp or gif`);
  }
  return sniffed;
}

async function checkUrlRef(ref: MediaRef, p: MediaPolicy, signal: AbortSignal, budget: SnapshotBudget, reserved: Reserved): Promise<Checked> {
  if (p.snapshot) {
    // What the provider will get is what we measure: our stored copy of these very bytes. Images
    // too: a server that recognises our fetch could otherwise show us one picture and the
    // provider another.
    const bytes = await downloadWhole(ref.url, p, signal, p.maxSnapshotBytes ?? DEFAULT_MEDIA_POLICY.maxSnapshotBytes!, budget, reserved);
    if (ref.kind === 'image') {
      const mime = urlImageMime(bytes);
      return { inline: { ref, mime, bytes, ext: extensionFor(mime), ...imageSize(bytes, mime) } };
    }
    const m = await measureMedia(new BufferSource(bytes), ref.kind, signal);
    return { seconds: m.seconds, inline: { ref, mime: m.mime, bytes, ext: extensionFor(m.mime) } };
  }
  // Images need only their signature: ask for the first 4 KiB, not the picture.
  const source = await HttpSource.open(ref.url, p, signal, ref.kind === 'image' ? 4096 : undefined);
  try {
    if (ref.kind === 'image') {
      urlImageMime(await source.read(0, 64)); // without snapshots only the signature is checked
      return {};
    }
    const m = await measureMedia(source, ref.kind, signal);
    return { seconds: m.seconds };
  } finally {
    source.close();
  }
}

function problemText(err: unknown, ref: MediaRef): string {
  if (isMediaProblem(err)) return err.message;
  // A parser giving up on garbage or a truncated file: client input, so a 400, not a 500.
  if (err instanceof EndOfStreamError) return `the ${ref.kind} file ends before its header does (truncated?)`;
  return `could not be read as ${ref.kind === 'audio' ? 'audio' : ref.kind === 'image' ? 'an image' : 'a video'}`;
}

function refusal(details: ErrorDetail[]): AppError {
  const text = details.map((d) => `${d.path}: ${d.message}`).join('; ');
  const message = details.length === 1 ? text : `${details.length} reference files were refused: ${text}`;
  return new AppError('invalid_media', message, details);
}

/** Runs `fn` over `items` with at most `limit` at once; results in input order. */
async function mapLimited<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
  return out;
}
