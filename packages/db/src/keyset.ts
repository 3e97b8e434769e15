// Keyset pagination on (createdAt, id), newest first: a page ends where the next one starts, so
// rows created while a client pages never shift or repeat earlier pages (an OFFSET would).
// `createdAt` travels as the exact millisecond ISO text (UTC) of the TIMESTAMPTZ(3) column.

export interface Keyset {
  createdAt: string;
  id: string;
}

/** SQL text of a TIMESTAMPTZ(3) column as the ISO string (UTC) the cursor keeps. */
export const isoOf = (column: string): string => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** Appends `(createdAt, id) < (cursor)` to `where`, with its values (the ISO text's Z makes it UTC). */
export function keysetWhere(where: string[], values: unknown[], before: Keyset | undefined): void {
  if (!before) return;
  values.push(before.createdAt, before.id);
  where.push(`("createdAt", "id") < ($${values.length - 1}::timestamptz, $${values.length}::text)`);
}

/** A page of `limit` from `limit + 1` fetched rows, and the key of its last row when more follow. */
export function pageOf<R extends { createdAt: string; id: string }>(rows: R[], limit: number): { rows: R[]; next: Keyset | null } {
  if (rows.length <= limit) return { rows, next: null };
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { rows: page, next: { createdAt: last.createdAt, id: last.id } };
}
