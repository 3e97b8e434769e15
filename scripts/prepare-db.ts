// Creates the database named in DATABASE_URL when it is missing, then applies migrations.
// Used by `npm start`, .ci/run and the container's one-shot migration. Works with DATABASE_URL
// pointing at PgBouncer in transaction mode too (docs/operations.md, "Behind PgBouncer").
import '@mediagen/runtime/node-version'; // first: one readable line on a Node older than 24.11
import { execFileSync } from 'node:child_process';
import { Client } from 'pg';

/**
 * Runs `fn` on a connection to the server's `postgres` database, with the (quoted) name of the
 * database that `databaseUrl` names: creating or dropping a database needs another one to stand in.
 */
export async function withServerAdmin<T>(databaseUrl: string, fn: (c: Client, name: string, quoted: string) => Promise<T>): Promise<T> {
  const url = new URL(databaseUrl);
  url.searchParams.delete('schema');
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  const c = new Client({ connectionString: url.toString() });
  await c.connect();
  try {
    return await fn(c, name, `"${name.replace(/"/g, '""')}"`);
  } finally {
    await c.end();
  }
}

/** The URL without Prisma's `schema` parameter (pg would send it to the server as a setting). */
function withoutSchema(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  url.searchParams.delete('schema');
  return url.toString();
}

async function databaseAnswers(databaseUrl: string): Promise<boolean> {
  const c = new Client({ connectionString: withoutSchema(databaseUrl) });
  try {
    await c.connect();
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => undefined);
  }
}

export async function createDatabaseIfMissing(databaseUrl: string): Promise<void> {
  // The database itself first: behind PgBouncer the server's `postgres` database may not be listed.
  if (await databaseAnswers(databaseUrl)) return;
  await withServerAdmin(databaseUrl, async (c, name, quoted) => {
    const r = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (r.rowCount === 0) await c.query(`CREATE DATABASE ${quoted}`);
  });
}

/** Prisma Migrate's advisory lock key: two migrators of one database wait for each other on it. */
const MIGRATION_LOCK_KEY = 72707369;

/**
 * Runs `fn` holding the migration lock as a transaction lock, on a connection of its own. Prisma
 * Migrate takes the same key as a session lock and never releases it (it counts on its connections
 * closing): behind PgBouncer in transaction mode that lock stays on a pooled server connection
 * after the CLI exits, and the next deploy waits 10 s for it and fails. So prisma.config.ts skips
 * Prisma's lock when MEDIAGEN_MIGRATION_LOCK_HELD says we hold it; a transaction keeps its server
 * connection under PgBouncer and releases the lock when it ends, however it ends.
 */
async function withMigrationLock<T>(databaseUrl: string, fn: () => T): Promise<T> {
  const c = new Client({ connectionString: withoutSchema(databaseUrl) });
  await c.connect();
  try {
    // A `?schema=` is created first, committed, so that the CLI's connections see it.
    const schema = new URL(databaseUrl).searchParams.get('schema');
    if (schema) await c.query(`CREATE SCHEMA IF NOT EXISTS "${schema.replace(/"/g, '""')}"`);
    await c.query('BEGIN');
    await c.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    const out = fn();
    await c.query('COMMIT');
    return out;
  } finally {
    await c.end().catch(() => undefined);
  }
}

export async function prepareDatabase(databaseUrl: string): Promise<void> {
  await createDatabaseIfMissing(databaseUrl);
  await withMigrationLock(databaseUrl, () =>
    execFileSync('npx', ['prisma', 'migrate', 'deploy'], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, DATABASE_URL: databaseUrl, MEDIAGEN_MIGRATION_LOCK_HELD: '1' },
    }),
  );
}

if (require.main === module) {
  const url = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/mediagen';
  prepareDatabase(url).then(
    () => console.log(`database ready: ${url.replace(/\/\/[^@]*@/, '//')}`),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
