// Keyset pagination on (createdAt, id), newest first: a page ends where the next one starts, so
// rows created while a client pages never shift or repeat earlier pages (an OFFSET would).
// `createdAt` travels as the exact millisecond ISO text of the TIMESTAMP(3) column (UTC).

export interface Keyset {
  createdAt: string;
  id: string;
}

/** SQL text of a TIMESTAMP(3) UTC column as the ISO string the cursor keeps. */
export const isoOf = (column: string): string => `to_char(${column}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * Appends `(createdAt, id) < (cursor)` to `where`, with its values. `timestamptz` columns compare
 * with the ISO text cast as timestamptz (its Z makes it UTC); TIMESTAMP(3) columns hold UTC already.
 */
export function keysetWhere(where: string[], values: unknown[], before: Keyset | undefined, type: 'timestamp' | 'timestamptz' = 'timestamp'): void {
  if (!before) return;
  values.push(before.createdAt, before.id);
  where.push(`("createdAt", "id") < ($${values.length - 1}::${type}, $${values.length}::text)`);
}

/** A page of `limit` from `limit + 1` fetched rows, and the key of its last row when more follow. */
export function pageOf<R extends { createdAt: string; id: string }>(rows: R[], limit: number): { rows: R[]; next: Keyset | null } {
  if (rows.length <= limit) return { rows, next: null };
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { rows: page, next: { createdAt: last.createdAt, id: last.id } };
}
