// Our plain SQL names tables and enum types without a schema ("Task", ::"TaskType"); Prisma's own
// queries name them with one ("s"."Task"). Qualifying ours with the URL's schema means no query
// depends on search_path, a session setting that a pooler in transaction mode (PgBouncer) does not
// keep from one transaction to the next (docs/operations.md, "Behind PgBouncer").
import { Prisma } from './generated/client';
import * as enums from './generated/enums';

/** Tables (no @@map in schema.prisma: a model's name is its table's) and enum types. */
const NAMES = [...Object.values(Prisma.ModelName), ...Object.keys(enums)];

// A quoted name not already after a dot (`"s"."Task"` stays, `"Task"."id"` becomes `"s"."Task"."id"`).
const UNQUALIFIED = new RegExp(`(?<![.\\w"])"(${NAMES.join('|')})"`, 'g');

const CACHE_LIMIT = 2_000;

export const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/**
 * Returns `qualify(text)`: the text with every unqualified table or enum name prefixed by `schema`.
 * A text that already names the schema (Prisma's generated queries) is left as it is. Results are
 * cached: the same few statements run all day.
 */
export function sqlQualifier(schema: string): (text: string) => string {
  const prefix = `${quoteIdent(schema)}.`;
  const cache = new Map<string, string>();
  return (text) => {
    const hit = cache.get(text);
    if (hit !== undefined) return hit;
    const out = text.includes(prefix) ? text : text.replace(UNQUALIFIED, (m) => prefix + m);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(text, out);
    return out;
  };
}
