// Prisma client on the pg driver adapter (no native engine: see docs/operations.md).
// A `?schema=` parameter in DATABASE_URL selects a Postgres schema; tests use one per file.
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

export function createDb(databaseUrl: string, opts: { poolSize?: number } = {}): Db {
  const { connectionString, schema } = parseDatabaseUrl(databaseUrl);
  const adapter = new PrismaPg(
    {
      connectionString,
      max: opts.poolSize ?? 10,
      // Raw SQL (the transactional operations) must see the same schema as the generated queries.
      options: `-c search_path="${schema}"`,
    },
    { schema },
  );
  return new PrismaClient({ adapter });
}
