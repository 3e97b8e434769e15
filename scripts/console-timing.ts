// Console page times on a large database: seeds a fresh schema with 100,000
// tasks (with attempts and ledger rows) over 200 accounts, starts the gateway in this process on
// it, signs in, and times each console page (median and worst of 5 after one warm-up). Optional:
// SCREENSHOTS=1 also saves a screenshot of each page to docs/console/ (needs /usr/bin/chromium).
//   npx tsx scripts/console-timing.ts [tasks]
import '@mediagen/runtime/node-version'; // first: one readable line on a Node older than 24.11
import { randomBytes } from 'node:crypto';
import { AddressInfo } from 'node:net';
import { loadConfig } from '@mediagen/config';
import { createDb, newId, sql, upsertOperator } from '@mediagen/db';
import { createTestSchema } from '@mediagen/db/testing';
import { hashPassword } from '@mediagen/console';
import { createDeps, closeDeps } from '../apps/gateway/src/deps';
import { createApp } from '../apps/gateway/src/app';

const TASKS = Number(process.argv[2] ?? 100_000);

async function seed(url: string): Promise<{ accountId: string; taskId: string; failedTaskId: string }> {
  const db = createDb(url, { poolSize: 2 });
  try {
    await sql(db, `INSERT INTO "Account" ("id", "name", "balanceCents") SELECT 'acc_seed_' || g, 'Customer ' || g, 100000 FROM generate_series(1, 200) g`);
    await sql(
      db,
      `INSERT INTO "Task" ("id", "accountId", "type", "model", "params", "status", "costCents", "costMicros", "resultUrls", "errorCode", "errorMessage",
                           "createdAt", "updatedAt", "finishedAt", "deadlineAt")
       SELECT 'tsk_seed_' || g, 'acc_seed_' || (g % 200 + 1), 'image', (ARRAY['image-a-5.0','image-b-2.5','video-a-h3'])[g % 3 + 1],
              jsonb_build_object('prompt', 'seeded <b>prompt</b> ' || g), (ARRAY['completed','failed','pending','processing'])[g % 4 + 1]::"TaskStatus",
              4, 40000, CASE WHEN g % 4 = 0 THEN ARRAY['http://127.0.0.1/files/x' || g || '.png'] ELSE ARRAY[]::text[] END,
              CASE WHEN g % 4 = 1 THEN 'generation_failed' END, CASE WHEN g % 4 = 1 THEN 'upstream said <img src=x onerror=alert(1)>' END,
              now() - make_interval(secs => g * 30), now(), now() - make_interval(secs => g * 30 - 20), now() + interval '6 hours'
         FROM generate_series(1, $1::int) g`,
      [TASKS],
    );
    await sql(
      db,
      `INSERT INTO "TaskAttempt" ("id", "taskId", "attemptNo", "channelId", "upstreamId", "status", "createdAt", "finishedAt")
       SELECT 'att_seed_' || g, 'tsk_seed_' || g, 1, 'sim-image', 'up-' || g, 'succeeded', now() - make_interval(secs => g * 30), now() - make_interval(secs => g * 30 - 20)
         FROM generate_series(1, $1::int) g`,
      [TASKS],
    );
    await sql(
      db,
      `INSERT INTO "LedgerEntry" ("id", "accountId", "taskId", "kind", "amountCents", "createdAt")
       SELECT 'led_seed_' || g, 'acc_seed_' || (g % 200 + 1), 'tsk_seed_' || g, 'charge', -4, now() - make_interval(secs => g * 30) FROM generate_series(1, $1::int) g`,
      [TASKS],
    );
    await sql(db, 'ANALYZE');
    if (process.env.EXPLAIN) {
      for (const w of ['', `WHERE "status" = 'failed'::"TaskStatus"`]) {
        const { rows } = await sql(db, `EXPLAIN ANALYZE SELECT "id", "accountId", "type"::text AS "type", "status"::text AS "status", "model", "progress", "resultUrls", "errorCode",
            "errorMessage", "retryable", "costCents", to_char("createdAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt" FROM "Task" ${w} ORDER BY "createdAt" DESC, "id" DESC LIMIT $1`, [51]);
        console.log(rows.map((r) => Object.values(r)[0]).join('\n'));
      }
    }
    return { accountId: 'acc_seed_1', taskId: 'tsk_seed_200', failedTaskId: 'tsk_seed_201' };
  } finally {
    await db.$disconnect();
  }
}

async function main(): Promise<void> {
  const schema = await createTestSchema('console_timing');
  const t0 = Date.now();
  const ids = await seed(schema.url);
  console.log(`seeded ${TASKS} tasks in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const prefix = `timing-${randomBytes(3).toString('hex')}`;
  const config = loadConfig({ ...process.env, DATABASE_URL: schema.url, REDIS_PREFIX: prefix, NODE_ENV: 'test', LOG_LEVEL: 'warn', ADMIN_TOKEN: 'timing-admin-token-0123456789' });
  const deps = await createDeps(config);
  await upsertOperator(deps.db, { id: newId('op'), name: 'timing', role: 'admin', passwordHash: await hashPassword('timing password 123') });
  const server = createApp(deps).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const form = await fetch(`${base}/console/login`);
    const loginCookie = form.headers.get('set-cookie')!.split(';')[0];
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1];
    const login = await fetch(`${base}/console/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { Cookie: loginCookie, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, name: 'timing', password: 'timing password 123' }).toString(),
    });
    const cookie = login.headers.getSetCookie().find((c) => c.startsWith('mg_console='))!.split(';')[0];
    const pages: [string, string][] = [
      ['accounts', '/console/accounts'],
      ['accounts search', '/console/accounts?q=Customer%2019'],
      ['account + ledger', `/console/accounts/${ids.accountId}`],
      ['tasks (all)', '/console/tasks'],
      ['tasks by account', `/console/tasks?account=${ids.accountId}`],
      ['tasks by status', '/console/tasks?status=failed'],
      ['tasks by model', '/console/tasks?model=video-a-h3'],
      ['tasks by status+model+time', `/console/tasks?status=failed&model=image-b-2.5&from=${new Date(Date.now() - 86_400_000).toISOString().slice(0, 16)}&tz=0`],
      ['tasks page 50', '/console/tasks?status=completed'],
      ['task timeline', `/console/tasks/${ids.taskId}`],
      ['channels', '/console/channels'],
    ];
    for (const [name, path] of pages) {
      const times: number[] = [];
      for (let i = 0; i < 6; i++) {
        const s = performance.now();
        const res = await fetch(`${base}${path}`, { headers: { Cookie: cookie } });
        await res.text();
        if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
        if (i > 0) times.push(performance.now() - s);
      }
      times.sort((a, b) => a - b);
      console.log(`${name.padEnd(28)} median ${times[2].toFixed(1).padStart(6)} ms   worst ${times[4].toFixed(1).padStart(6)} ms`);
    }
    if (process.env.EXPLAIN) {
      const { listTasks } = await import('@mediagen/db');
      for (const f of [{}, { status: 'failed' as const }]) {
        const s = performance.now();
        for (let i = 0; i < 5; i++) await listTasks(deps.db, { ...f, limit: 50 });
        console.log(`listTasks ${JSON.stringify(f)}: ${((performance.now() - s) / 5).toFixed(1)} ms`);
      }
    }
    if (process.env.SCREENSHOTS) await (await import('./console-screenshots')).screenshots(base, ids);
  } finally {
    server.close();
    await closeDeps(deps);
    await schema.drop();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
