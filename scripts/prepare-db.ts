// Creates the database named in DATABASE_URL when it is missing, then applies migrations.
// Used by `npm start`, .ci/run and the container's one-shot migration.
import { execFileSync } from 'node:child_process';
import { Client } from 'pg';

export async function prepareDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  url.searchParams.delete('schema');
  const name = decodeURIComponent(url.pathname.slice(1));
  const admin = new URL(url.toString());
  admin.pathname = '/postgres';
  const c = new Client({ connectionString: admin.toString() });
  await c.connect();
  try {
    const r = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (r.rowCount === 0) await c.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } finally {
    await c.end();
  }
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
