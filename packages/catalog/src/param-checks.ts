// Small checks shared by the video and image rules. Each throws a 400 naming the field as the
// client wrote it; messages say what would have been accepted, so a client can fix the request
// without reading the docs.
import { AppError, ErrorDetail, invalid } from '@mediagen/errors';
import type { z } from 'zod';
import type { MediaKind, MediaRef, ValidateOptions } from './types';
import { MAX_INLINE_FILES, MAX_PROMPT_CHARS } from './limits';
import { parseMediaRef } from './media-items';
import { zodErrorToAppError } from './zod-issues';

/** Optional fields accept null; null means "not sent". An empty `media` list is not sent either. */
export const isSent = (v: unknown): boolean => v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0);

export function fail(path: string, message: string): never {
  throw invalid(path, message);
}

/** Runs the structural zod schema; a non-object body or any zod issue becomes one AppError. */
export function parseStructure<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) fail('', 'request body must be a JSON object');
  const r = schema.safeParse(body);
  if (!r.success) throw zodErrorToAppError(r.error, body);
  return r.data;
}

/** All parameters the model or mode does not take, reported together (field -> why). */
export function rejectUnsupported(body: Record<string, unknown>, reasons: Record<string, string>): void {
  const details: ErrorDetail[] = Object.entries(reasons)
    .filter(([field]) => isSent(body[field]))
    .map(([path, message]) => ({ path, message }));
  if (details.length === 0) return;
  const names = details.map((d) => d.path).join(', ');
  throw new AppError('unsupported_parameter', `${names}: ${details[0].message}`, details);
}

export function unsupported(path: string, message: string): never {
  throw invalid(path, message, 'unsupported_parameter');
}

/** `value` must be one of `allowed`; `what` reads like "video-a-h3 offers resolutions". */
export function checkChoice<T extends string>(value: T, allowed: readonly string[], path: string, what: string): T {
  if (!allowed.includes(value)) fail(path, `"${value}" is not offered; ${what} ${allowed.join(', ')}`);
  return value;
}

export function checkRange(value: number, min: number, max: number, path: string, context: string): void {
  if (value < min || value > max) fail(path, `must be between ${min} and ${max} seconds ${context}`);
}

/** Trimmed prompt, or null when it may be left out. Length is counted in code points, not UTF-16 units. */
export function checkPrompt(prompt: string | null | undefined, required: boolean): string | null {
  const trimmed = typeof prompt === 'string' ? prompt.trim() : '';
  if (!trimmed) {
    if (required) fail('prompt', prompt == null ? 'required' : 'must not be blank');
    return null;
  }
  // Every code point is one or two UTF-16 units: over twice the maximum in units is over the
  // maximum in code points, refused without walking (or copying) a multi-megabyte string.
  if (trimmed.length > 2 * MAX_PROMPT_CHARS) fail('prompt', `is over ${MAX_PROMPT_CHARS} characters; the maximum is ${MAX_PROMPT_CHARS}`);
  const chars = codePoints(trimmed);
  if (chars > MAX_PROMPT_CHARS) fail('prompt', `is ${chars} characters; the maximum is ${MAX_PROMPT_CHARS}`);
  return trimmed;
}

function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

export function parseMediaItems(items: { type: MediaKind; url: string }[] | null | undefined, opts: ValidateOptions): MediaRef[] {
  return (items ?? []).map((item, i) => parseMediaRef(item.url, `media[${i}].url`, item.type, 'reference', opts));
}

const KIND_WORDS: Record<MediaKind, string> = { image: 'reference images', video: 'reference videos', audio: 'audio clips' };

/** Per-kind maxima; the error names the first item over the limit (`media[9]`). */
export function checkMediaCounts(refs: MediaRef[], max: Record<MediaKind, number>, who: string): void {
  for (const kind of ['image', 'video', 'audio'] as const) {
    const ofKind = refs.filter((r) => r.kind === kind);
    if (ofKind.length <= max[kind]) continue;
    const over = ofKind[max[kind]].path.replace(/\.url$/, '');
    fail(over, max[kind] === 0 ? `${who} takes no ${KIND_WORDS[kind]}` : `${who} takes at most ${max[kind]} ${KIND_WORDS[kind]}`);
  }
}

/** At most 12 inline files per request, counting media, images and frames together. */
export function checkInlineCount(refs: MediaRef[]): void {
  const inline = refs.filter((r) => r.source === 'inline');
  if (inline.length <= MAX_INLINE_FILES) return;
  throw invalid(inline[MAX_INLINE_FILES].path, `at most ${MAX_INLINE_FILES} inline (data URI) files per request; send the others as URLs`, 'invalid_media');
}
