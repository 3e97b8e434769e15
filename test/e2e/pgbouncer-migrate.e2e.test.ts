// `npm run db:prepare` (and so `npm start`) with DATABASE_URL pointing at
// PgBouncer in transaction mode. Prisma Migrate takes its advisory lock as a session lock and never
// releases it (it counts on its connection closing); behind PgBouncer the lock stayed on a pooled
// server connection after the CLI exited, and the next deploy failed after waiting 10 s for it.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { prepareDatabase } from '../../scripts/prepare-db';
import { onTestServer, PgBouncer, pgbouncerMissing, startPgBouncer, testServerUrl } from './support/pgbouncer';

const skip = pgbouncerMissing();
const dbName = `mg_pgbm_${randomBytes(4).toString('hex')}`;
const MIGRATIONS = path.resolve(__dirname, '../../prisma/migrations');

(skip ? describe.skip : describe)('npm run db:prepare through PgBouncer in transaction mode', () => {
  let bouncer: PgBouncer | undefined;

  beforeAll(async () => {
    bouncer = await startPgBouncer(testServerUrl, { poolSize: 3 });
  });

  afterAll(async () => {
    await bouncer?.stop();
    await onTestServer((c) => c.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`));
  });

  it('creates the database, applies every migration and leaves no lock on a pooled server connection', async () => {
    const direct = new URL(testServerUrl);
    direct.pathname = `/${dbName}`;
    await prepareDatabase(bouncer!.via(direct.toString()));

    const migrations = fs.readdirSync(MIGRATIONS).filter((d) => fs.existsSync(path.join(MIGRATIONS, d, 'migration.sql')));
    const c = new Client({ connectionString: direct.toString() });
    await c.connect();
    try {
      const applied = await c.query('SELECT count(*)::int AS n FROM "_prisma_migrations" WHERE "finished_at" IS NOT NULL AND "rolled_back_at" IS NULL');
      expect(applied.rows[0].n).toBe(migrations.length);
      // PgBouncer keeps its server connections after the CLI is gone: a session lock would still be here.
      const locks = await c.query(
        `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND a.datname = $1`,
        [dbName],
      );
      expect(locks.rows[0].n).toBe(0);
    } finally {
      await c.end();
    }
  }, 150_000);
});
