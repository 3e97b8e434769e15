// Shared pieces of the table-driven tests: run a body through a parser and compare with the row's
// expectation (a 400 with code and field path, or a subset of the normalized spec).
import { isAppError } from '@mediagen/errors';
import type { ErrorCode } from '@mediagen/errors';
import type { ValidateOptions } from '../src';

export const OPTS: ValidateOptions = { allowPrivateMediaUrls: false };
export const DEV_OPTS: ValidateOptions = { allowPrivateMediaUrls: true };

export const IMG = { type: 'image', url: 'https://cdn.example.com/ref.png' };
export const AUD = { type: 'audio', url: 'https://cdn.example.com/voice.mp3' };
export const VID = { type: 'video', url: 'https://cdn.example.com/clip.mp4' };
export const FRAME = 'https://cdn.example.com/frame.png';
export const times = <T>(n: number, item: T): T[] => Array.from({ length: n }, () => item);

/** A data URI with `bytes` decoded bytes (content is base64 "A"s: valid, not a real file). */
export function dataUri(mime: string, bytes: number): string {
  const full = Math.floor(bytes / 3) * 4;
  const rest = bytes % 3;
  return `data:${mime};base64,${'A'.repeat(full)}${rest === 1 ? 'AA==' : rest === 2 ? 'AAA=' : ''}`;
}

export type Expect =
  | { spec: Record<string, unknown> }
  | { code: ErrorCode; path: string; message?: RegExp; paths?: string[] };

export interface Row {
  rule: string;
  body: unknown;
  expect: Expect;
  opts?: ValidateOptions;
}

type Parser = (body: unknown, opts: ValidateOptions) => { spec: object; clientRequestId: string | null };

export function checkRow(parse: Parser, row: Row): void {
  let result: { spec: object; clientRequestId: string | null } | undefined;
  let error: unknown;
  try {
    result = parse(row.body, row.opts ?? OPTS);
  } catch (e) {
    error = e;
  }
  if ('spec' in row.expect) {
    if (error) throw new Error(`expected success, got ${isAppError(error) ? `${error.code}: ${error.message}` : String(error)}`);
    expect(result!.spec).toMatchObject(row.expect.spec);
    return;
  }
  if (!error) throw new Error(`expected ${row.expect.code} at ${row.expect.path}, got success`);
  if (!isAppError(error)) throw error;
  expect({ status: error.status, code: error.code, path: error.details?.[0]?.path }).toEqual({
    status: 400, code: row.expect.code, path: row.expect.path,
  });
  if (row.expect.message) expect(error.message).toMatch(row.expect.message);
  if (row.expect.paths) expect(error.details!.map((d) => d.path)).toEqual(row.expect.paths);
}

export const ok = (spec: Record<string, unknown>): Expect => ({ spec });
export const err = (code: ErrorCode, path: string, message?: RegExp): Expect => ({ code, path, ...(message ? { message } : {}) });

/** Runs `fn` and returns the AppError it throws (fails the test when it does not throw one). */
export function appErrorOf(fn: () => unknown) {
  try {
    fn();
  } catch (e) {
    if (isAppError(e)) return e;
    throw e;
  }
  throw new Error('expected an AppError');
}
