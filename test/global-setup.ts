// Runs once before all test files: makes sure the test database exists. Each file then creates
// its own schema in it (packages/db/src/test-schema.ts) and its own Redis prefix.
import { Client } from 'pg';
import { baseTestDatabaseUrl } from '../packages/db/src/test-schema';
import { parseDatabaseUrl } from '../packages/db/src/client';

export default async function globalSetup(): Promise<void> {
  const url = new URL(parseDatabaseUrl(baseTestDatabaseUrl()).connectionString);
  const dbName = url.pathname.slice(1);
  url.pathname = '/postgres';
  const c = new Client({ connectionString: url.toString() });
  await c.connect();
  try {
    const r = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [dbName]);
    if (r.rowCount === 0) await c.query(`CREATE DATABASE "${dbName}"`);
  } finally {
    await c.end();
  }
}
