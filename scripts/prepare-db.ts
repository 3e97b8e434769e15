// Creates the database named in DATABASE_URL when it is missing, then applies migrations.
// Used by `npm start`, .ci/run and the container's one-shot migration.
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

export async function createDatabaseIfMissing(databaseUrl: string): Promise<void> {
  await withServerAdmin(databaseUrl, async (c, name, quoted) => {
    const r = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (r.rowCount === 0) await c.query(`CREATE DATABASE ${quoted}`);
  });
}

export async function prepareDatabase(databaseUrl: string): Promise<void> {
  await createDatabaseIfMissing(databaseUrl);
  execFileSync('npx', ['prisma', 'migrate', 'deploy'], { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DATABASE_URL: databaseUrl } });
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
