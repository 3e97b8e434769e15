// Prisma client on the pg driver adapter (no native engine: see docs/operations.md).
// A `?schema=` parameter in DATABASE_URL selects a Postgres schema; tests use one per file.
//
// The adapter runs on a pg.Pool we create, and the same pool serves the few hot operations that
// are written in plain SQL (sql.ts): Prisma 6's client engine compiles every query in Wasm on the
// event loop, about 0.5-1 ms of CPU per query here, ten times what the query itself costs through
// pg (docs/benchmark.md). Everything else keeps using Prisma.
import { Pool } from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/client';

export type Db = PrismaClient;

export interface DbUrlParts {
  connectionString: string;
  schema: string;
}

/** Splits Prisma's `schema` parameter off the URL: pg would send it to Postgres as a setting. */
export function parseDatabaseUrl(databaseUrl: string): DbUrlParts {
  const url = new URL(databaseUrl);
  const schema = url.searchParams.get('schema') ?? 'public';
  url.searchParams.delete('schema');
  return { connectionString: url.toString(), schema };
}

const pools = new WeakMap<Db, Pool>();

export function createDb(databaseUrl: string, opts: { poolSize?: number } = {}): Db {
  const { connectionString, schema } = parseDatabaseUrl(databaseUrl);
  const pool = new Pool({
    connectionString,
    max: opts.poolSize ?? 10,
    // Raw SQL (the transactional operations) must see the same schema as the generated queries.
    options: `-c search_path="${schema}"`,
  });
  const adapter = new PrismaPg(pool, { schema, disposeExternalPool: true });
  const db = new PrismaClient({ adapter });
  pools.set(db, pool);
  return db;
}

/** The pg pool under a client made by createDb (shared with Prisma; ended by db.$disconnect()). */
export function sqlPool(db: Db): Pool {
  const pool = pools.get(db);
  if (!pool) throw new Error('sqlPool: this client was not made by createDb');
  return pool;
}
