// Test isolation: each test file gets its own Postgres schema with the migrations applied,
// and drops it afterwards. Applying the SQL directly is much faster than the Prisma CLI.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { parseDatabaseUrl } from './client';

const MIGRATIONS = path.resolve(__dirname, '../../../prisma/migrations');

export function baseTestDatabaseUrl(): string {
  return process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/mediagen_test';
}

export interface TestSchema {
  /** DATABASE_URL pointing at the schema (with `?schema=`), for createDb or child processes. */
  url: string;
  schema: string;
  drop(): Promise<void>;
}

export async function createTestSchema(label = 't'): Promise<TestSchema> {
  const base = baseTestDatabaseUrl();
  const { connectionString } = parseDatabaseUrl(base);
  const schema = `${label.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${randomBytes(4).toString('hex')}`;
  const client = new Client({ connectionString });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA "${schema}"`);
    await client.query(`SET search_path TO "${schema}"`);
    const dirs = fs.readdirSync(MIGRATIONS).filter((d) => fs.existsSync(path.join(MIGRATIONS, d, 'migration.sql'))).sort();
    for (const d of dirs) await client.query(fs.readFileSync(path.join(MIGRATIONS, d, 'migration.sql'), 'utf8'));
  } finally {
    await client.end();
  }
  const url = new URL(connectionString);
  url.searchParams.set('schema', schema);
  return {
    url: url.toString(),
    schema,
    async drop() {
      const c = new Client({ connectionString });
      await c.connect();
      try {
        await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await c.end();
      }
    },
  };
}
