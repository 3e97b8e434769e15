// Test isolation: each test file gets its own Postgres schema with the migrations applied,
// and drops it afterwards. Applying the SQL directly is much faster than the Prisma CLI.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { parseDatabaseUrl } from './client';

const MIGRATIONS = path.resolve(__dirname, '../../../prisma/migrations');

/**
 * The database the tests make their schemas in: TEST_DATABASE_URL, else the `<name>_test` sibling
 * of DATABASE_URL's database on the same server (with DATABASE_URL exported for `npm start`, the
 * tests' schemas used to land in the development database), else .../mediagen_test.
 */
export function baseTestDatabaseUrl(): string {
  if (process.env.TEST_DATABASE_URL) return process.env.TEST_DATABASE_URL;
  if (process.env.DATABASE_URL) return testDatabaseOf(process.env.DATABASE_URL);
  return 'postgresql://postgres@127.0.0.1:5432/mediagen_test';
}

/** `.../mediagen` -> `.../mediagen_test`; a database already named `test` or `*_test` is kept. */
export function testDatabaseOf(databaseUrl: string): string {
  const u = new URL(databaseUrl);
  const name = decodeURIComponent(u.pathname.replace(/^\//, '')) || 'postgres';
  if (!/(^|_)test$/.test(name)) u.pathname = `/${encodeURIComponent(`${name}_test`)}`;
  u.searchParams.delete('schema');
  return u.toString();
}

export interface TestSchema {
  /** DATABASE_URL pointing at the schema (with `?schema=`), for createDb or child processes. */
  url: string;
  schema: string;
  drop(): Promise<void>;
}

/** `opts.baseUrl`: another database than the shared test database (e.g. one with its own TimeZone). */
export async function createTestSchema(label = 't', opts: { baseUrl?: string } = {}): Promise<TestSchema> {
  const base = opts.baseUrl ?? baseTestDatabaseUrl();
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

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * A database of its own whose default TimeZone is `timeZone` (ALTER DATABASE ... SET TimeZone),
 * as a server configured for a non-UTC zone is: every session that does not set one gets it.
 */
export async function createTimeZoneDatabase(timeZone: string): Promise<TestDatabase> {
  const { connectionString } = parseDatabaseUrl(baseTestDatabaseUrl());
  const name = `mg_tz_${timeZone.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${randomBytes(3).toString('hex')}`;
  const admin = async (fn: (c: Client) => Promise<unknown>) => {
    const c = new Client({ connectionString });
    await c.connect();
    try {
      await fn(c);
    } finally {
      await c.end();
    }
  };
  await admin(async (c) => {
    await c.query(`CREATE DATABASE "${name}"`);
    await c.query(`ALTER DATABASE "${name}" SET TimeZone TO '${timeZone.replace(/'/g, '')}'`);
  });
  const url = new URL(connectionString);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)) };
}

/** The same URL with a Postgres setting for every session it opens (`options=-c name=value`). */
export function withSessionSetting(databaseUrl: string, name: string, value: string): string {
  const url = new URL(databaseUrl);
  url.searchParams.set('options', `${url.searchParams.get('options') ?? ''} -c ${name}=${value}`.trim());
  return url.toString();
}
