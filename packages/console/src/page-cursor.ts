// Keyset cursors of server-rendered tables (console and account pages), on the same codec as the
// API's cursors (packages/db keyset.ts); a cursor that does not parse starts from the first page
// rather than failing the page.
import { encodeKeysetCursor, Keyset, parseKeysetCursor } from '@mediagen/db';

const KIND = 'page';

export const encodePageCursor = (k: Keyset | null): string | null => encodeKeysetCursor(KIND, k);

export const decodePageCursor = (raw: unknown): Keyset | undefined => parseKeysetCursor(KIND, raw) ?? undefined;
