// Opaque listing cursors: base64url of [kind, createdAt, id]. The kind keeps a ledger cursor from
// being read as a task cursor; anything this service did not issue is a 400 `invalid_cursor`.
import { z } from 'zod';
import { AppError } from '@mediagen/errors';
import type { Keyset } from '@mediagen/db';

export type CursorKind = 'tasks' | 'ledger' | 'deliveries';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const shape = z.tuple([z.string(), z.string().regex(ISO_MS), z.string().min(1).max(200)]);

export const encodeCursor = (kind: CursorKind, k: Keyset | null): string | null =>
  k ? Buffer.from(JSON.stringify([kind, k.createdAt, k.id])).toString('base64url') : null;

export function decodeCursor(kind: CursorKind, raw: string | undefined): Keyset | undefined {
  if (raw === undefined) return undefined;
  const refuse = () => new AppError('invalid_cursor', 'cursor: not a cursor from a previous page of this listing', [{ path: 'cursor', message: 'invalid cursor' }]);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw refuse();
  }
  const r = shape.safeParse(parsed);
  if (!r.success || r.data[0] !== kind || Number.isNaN(Date.parse(r.data[1]))) throw refuse();
  return { createdAt: r.data[1], id: r.data[2] };
}
