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

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * The one codec of listing cursors, for the API, the admin API and the server-rendered pages:
 * base64url of [kind, createdAt, id]. The kind keeps a cursor of one listing from being read by
 * another. Opaque to clients.
 */
export const encodeKeysetCursor = (kind: string, k: Keyset | null): string | null =>
  k ? Buffer.from(JSON.stringify([kind, k.createdAt, k.id])).toString('base64url') : null;

/** The keyset of a cursor this service issued for `kind`, or null for anything else (callers decide: 400, or the first page). */
export function parseKeysetCursor(kind: string, raw: unknown): Keyset | null {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 500) return null;
  try {
    const v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as unknown;
    if (
      Array.isArray(v) && v.length === 3 && v[0] === kind && typeof v[1] === 'string' && ISO_MS.test(v[1]) && !Number.isNaN(Date.parse(v[1])) &&
      typeof v[2] === 'string' && v[2].length > 0 && v[2].length <= 200
    )
      return { createdAt: v[1], id: v[2] };
  } catch {
    /* not a cursor */
  }
  return null;
}
