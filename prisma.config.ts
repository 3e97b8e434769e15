// Prisma CLI config. Prisma must run with the JS (WASM) schema engine: the native engine would be
// downloaded from the vendor's server, which is unreachable on our machines (docs/operations.md).
import path from 'node:path';
import { defineConfig } from 'prisma/config';
import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';

// The CLI skips .env loading, and without a URL it falls back to the native engine.
process.env.DATABASE_URL ??= 'postgresql://postgres@127.0.0.1:5432/mediagen';

/**
 * prisma/orm issue 27403: migrate through adapter-pg fails with "Column type 'name' could not be
 * deserialized" because catalog queries return Postgres' `name` type (OID 19). Report it as text (25).
 */
class NameAsTextPool extends Pool {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  query(...args: any[]): any {
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
    return new PrismaPg(new NameAsTextPool({ connectionString: process.env.DATABASE_URL }));
  },
});
