// Keyset cursors of console tables (base64url of [createdAt, id]); a cursor that does not parse
// starts from the first page rather than failing the page.
import type { Keyset } from '@mediagen/db';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export const encodePageCursor = (k: Keyset | null): string | null => (k ? Buffer.from(JSON.stringify([k.createdAt, k.id])).toString('base64url') : null);

export function decodePageCursor(raw: unknown): Keyset | undefined {
  if (typeof raw !== 'string' || raw.length > 400) return undefined;
  try {
    const v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(v) && typeof v[0] === 'string' && ISO_MS.test(v[0]) && typeof v[1] === 'string' && v[1].length <= 200) return { createdAt: v[0], id: v[1] };
  } catch {
    /* not a cursor */
  }
  return undefined;
}
