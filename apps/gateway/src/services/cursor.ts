// Listing cursors of the API and admin API: the shared codec (packages/db keyset.ts, also behind
// the console's and account pages' cursors); anything this service did not issue for the listing
// is a 400 `invalid_cursor`.
import { AppError } from '@mediagen/errors';
import { encodeKeysetCursor, Keyset, parseKeysetCursor } from '@mediagen/db';

export type CursorKind = 'tasks' | 'ledger' | 'deliveries';

export const encodeCursor = (kind: CursorKind, k: Keyset | null): string | null => encodeKeysetCursor(kind, k);

export function decodeCursor(kind: CursorKind, raw: string | undefined): Keyset | undefined {
  if (raw === undefined) return undefined;
  const k = parseKeysetCursor(kind, raw);
  if (!k) throw new AppError('invalid_cursor', 'cursor: not a cursor from a previous page of this listing', [{ path: 'cursor', message: 'invalid cursor' }]);
  return k;
}
