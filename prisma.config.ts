// Prisma CLI config. Prisma must run with the JS (WASM) schema engine: the native engine would be
// downloaded from the vendor's server, which is unreachable on our machines (docs/operations.md).
import path from 'node:path';
import { defineConfig } from 'prisma/config';
import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';

// The CLI skips .env loading, and without a URL it falls back to the native engine.
process.env.DATABASE_URL ??= 'postgresql://postgres@127.0.0.1:5432/mediagen';

/**
 * scripts/prepare-db.ts holds Prisma Migrate's lock itself, as a transaction lock, and says so: the
 * session lock Prisma takes (and never releases) would outlive the CLI behind PgBouncer.
 */
const LOCK_HELD = process.env.MEDIAGEN_MIGRATION_LOCK_HELD === '1';
const NO_LOCK = 'SELECT NULL::void AS pg_advisory_lock';
const isMigrationLock = (q: unknown): boolean => {
  const text = typeof q === 'string' ? q : (q as { text?: unknown } | null)?.text;
  return typeof text === 'string' && /^\s*SELECT\s+pg_advisory_lock\(\s*72707369\s*\)\s*;?\s*$/i.test(text);
};

/**
 * prisma/orm issue 27403: migrate through adapter-pg fails with "Column type 'name' could not be
 * deserialized" because catalog queries return Postgres' `name` type (OID 19). Report it as text (25).
 */
class NameAsTextPool extends Pool {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  query(...args: any[]): any {
    if (LOCK_HELD && isMigrationLock(args[0])) args[0] = typeof args[0] === 'string' ? NO_LOCK : { ...args[0], text: NO_LOCK };
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const result = (super.query as any)(...args);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const fix = (r: any) => {
      for (const f of r?.fields ?? []) if (f.dataTypeID === 19) f.dataTypeID = 25;
      return r;
    };
    return result && typeof result.then === 'function' ? result.then(fix) : result;
  }
}

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: path.join('prisma', 'schema.prisma'),
  migrations: { path: path.join('prisma', 'migrations') },
  async adapter() {
    // Migration scripts name tables without a schema: a `?schema=` must be the session's
    // search_path (a startup option, which PgBouncer in transaction mode refuses: docs/operations.md).
    const url = new URL(process.env.DATABASE_URL!);
    const schema = url.searchParams.get('schema');
    url.searchParams.delete('schema');
    const options = schema ? `-c search_path="${schema.replace(/"/g, '""')}"` : undefined;
    return new PrismaPg(new NameAsTextPool({ connectionString: url.toString(), options }), schema ? { schema } : undefined);
  },
});
