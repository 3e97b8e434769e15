// Turns zod's issues into our one error model, with paths in the client's notation
// (`media[2].url`, `images[0]`) so a client can point at the field it wrote.
import type { z } from 'zod';
import { AppError, ErrorCode, ErrorDetail } from '@mediagen/errors';

/** ['media', 2, 'url'] -> 'media[2].url' */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

function valueAt(body: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = body;
  for (const part of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[part as string];
  }
  return cur;
}

interface Classified { code: ErrorCode; detail: ErrorDetail }

function classify(issue: z.core.$ZodIssue, body: unknown): Classified[] {
  // Issues inside one media item are about the item's shape: invalid_media, even for unknown keys.
  const inMediaItem = issue.path.length >= 2 && issue.path[0] === 'media' && typeof issue.path[1] === 'number';
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({
      code: inMediaItem ? 'invalid_media' : 'unknown_field',
      detail: { path: formatPath([...issue.path, key]), message: inMediaItem ? 'unknown field; a media item has only type and url' : 'unknown field' },
    }));
  }
  const path = formatPath(issue.path);
  let message = issue.message;
  // zod says "expected string, received undefined" (or lists enum options) for a missing field;
  // say what the client needs.
  if (valueAt(body, issue.path) === undefined) message = 'required';
  return [{ code: inMediaItem ? 'invalid_media' : 'validation_error', detail: { path, message } }];
}

// When several kinds of problem occur, the most specific code wins: a typo in a field name is
// usually the cause of the other complaints, and a broken media item is more precise than a type.
const PRIORITY: ErrorCode[] = ['unknown_field', 'invalid_media', 'validation_error'];

/** Every issue becomes a detail; the code is the highest-priority kind present. */
export function zodErrorToAppError(error: z.ZodError, body: unknown): AppError {
  const all = error.issues.flatMap((i) => classify(i, body));
  const code = PRIORITY.find((c) => all.some((a) => a.code === c)) ?? 'validation_error';
  const ordered = [...all.filter((a) => a.code === code), ...all.filter((a) => a.code !== code)];
  const first = ordered[0].detail;
  const more = ordered.length > 1 ? ` (and ${ordered.length - 1} more)` : '';
  return new AppError(code, `${first.path ? `${first.path}: ` : ''}${first.message}${more}`, ordered.map((o) => o.detail));
}
