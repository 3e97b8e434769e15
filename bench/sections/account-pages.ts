// Section `account-pages`: the account holder's tasks and ledger pages for one holder
// with 100,000 tasks (and their charges, a refund for every failed one) answer within 300 ms p95.
// The rows are made with generate_series SQL in seconds; the holder signs in through the real
// sign-in form, then each page is fetched REQUESTS times one after another (after a warm-up), as a
// person clicking would: first pages, a filter, and a page deep in the keyset (cursor) order.
import { createHolderWithAccount, markEmailVerified, sql } from '@mediagen/db';
import { hashPassword } from '@mediagen/console';
import { figure } from '../lib/report';
import { percentile } from '../lib/stats';
import type { Section } from './section';

const TASKS = Number(process.env.BENCH_ACCOUNT_TASKS ?? 100_000);
const REQUESTS = Number(process.env.BENCH_ACCOUNT_REQUESTS ?? 60);
const TARGET_MS = 300;
const PASSWORD = 'bench account password';

export const accountPagesSection: Section = {
  name: 'account-pages',
  run: async (ctx) => {
    const email = `bench-${Date.now()}@example.com`;
    const made = await createHolderWithAccount(ctx.db, { email, passwordHash: await hashPassword(PASSWORD), openingBalanceCents: 0 });
    if (!('holderId' in made)) throw new Error('bench holder email taken');
    await markEmailVerified(ctx.db, made.holderId);
    const t0 = Date.now();
    await sql(
      ctx.db,
      `INSERT INTO "Task" ("id", "accountId", "type", "model", "params", "status", "costCents", "costMicros", "resultUrls", "errorCode", "errorMessage",
                           "createdAt", "updatedAt", "finishedAt", "deadlineAt")
       SELECT 'tsk_acct_' || g, $2, 'image', (ARRAY['image-a-5.0','image-b-2.5','video-a-h3'])[g % 3 + 1], jsonb_build_object('prompt', 'bench ' || g),
              (ARRAY['completed','failed','completed','completed'])[g % 4 + 1]::"TaskStatus", 4, 40000,
              CASE WHEN g % 4 <> 1 THEN ARRAY['http://127.0.0.1/files/x' || g || '.png'] ELSE ARRAY[]::text[] END,
              CASE WHEN g % 4 = 1 THEN 'generation_failed' END, CASE WHEN g % 4 = 1 THEN 'failed' END,
              now() - make_interval(secs => g * 25), now(), now() - make_interval(secs => g * 25 - 20), now() + interval '6 hours'
         FROM generate_series(1, $1::int) g`,
      [TASKS, made.accountId],
    );
    await sql(
      ctx.db,
      `INSERT INTO "LedgerEntry" ("id", "accountId", "taskId", "kind", "amountCents", "reason", "createdAt")
       SELECT 'led_acct_c' || g, $2, 'tsk_acct_' || g, 'charge'::"LedgerKind", -4, 'task', now() - make_interval(secs => g * 25) FROM generate_series(1, $1::int) g
       UNION ALL
       SELECT 'led_acct_r' || g, $2, 'tsk_acct_' || g, 'refund'::"LedgerKind", 4, 'refund', now() - make_interval(secs => g * 25 - 20) FROM generate_series(1, $1::int) g WHERE g % 4 = 1`,
      [TASKS, made.accountId],
    );
    // The balance is its ledger's sum, as always.
    await sql(ctx.db, `UPDATE "Account" SET "balanceCents" = (SELECT COALESCE(sum("amountCents"), 0) FROM "LedgerEntry" WHERE "accountId" = $1) + 1000000 WHERE "id" = $1`, [made.accountId]);
    await sql(ctx.db, `INSERT INTO "LedgerEntry" ("id", "accountId", "kind", "amountCents", "reason", "actor") VALUES ('led_acct_top', $1, 'topup', (SELECT "balanceCents" FROM "Account" WHERE "id" = $1) - (SELECT COALESCE(sum("amountCents"), 0) FROM "LedgerEntry" WHERE "accountId" = $1), 'bench', 'bench')`, [made.accountId]);
    await sql(ctx.db, 'ANALYZE "Task"; ');
    await sql(ctx.db, 'ANALYZE "LedgerEntry"');
    ctx.log(`  account-pages: seeded ${TASKS} tasks and their ledger for one holder in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

    const base = ctx.stack.base;
    const form = await fetch(`${base}/account/signin`);
    const formCookie = (form.headers.get('set-cookie') ?? '').split(';')[0];
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1];
    const signin = await fetch(`${base}/account/signin`, {
      method: 'POST',
      redirect: 'manual',
      headers: { Cookie: formCookie, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, email, password: PASSWORD, next: '/account' }).toString(),
    });
    const session = (signin.headers.getSetCookie().find((c) => c.startsWith('mg_account=')) ?? '').split(';')[0];
    if (signin.status !== 303 || !session) throw new Error(`account-pages: sign-in failed (${signin.status})`);
    const get = async (path: string) => {
      const t = performance.now();
      const r = await fetch(`${base}${path}`, { headers: { Cookie: session } });
      const body = await r.text();
      if (r.status !== 200) throw new Error(`account-pages: ${path} answered ${r.status}`);
      return { ms: performance.now() - t, body };
    };
    // A cursor deep in the order: follow "older" links a few pages in.
    const deep = async (path: string, pages: number) => {
      let p = path;
      for (let i = 0; i < pages; i++) {
        const m = /href="(\/account\/(?:tasks|ledger)\?[^"]*cursor=[^"]+)"/.exec((await get(p)).body);
        if (!m) break;
        p = m[1].replace(/&amp;/g, '&');
      }
      return p;
    };
    const pages: [string, string][] = [
      ['tasks, first page', '/account/tasks'],
      ['tasks, status=failed', '/account/tasks?status=failed'],
      ['tasks, model filter', '/account/tasks?model=video-a-h3'],
      ['tasks, 20 pages in', await deep('/account/tasks', 20)],
      ['ledger, first page', '/account/ledger'],
      ['ledger, 20 pages in', await deep('/account/ledger', 20)],
    ];
    for (const [name, path] of pages) {
      for (let i = 0; i < 3; i++) await get(path);
      const times: number[] = [];
      for (let i = 0; i < REQUESTS; i++) times.push((await get(path)).ms);
      times.sort((a, b) => a - b);
      const p95 = percentile(times, 95);
      ctx.log(`  account-pages: ${name}: p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${p95.toFixed(1)} ms`);
      ctx.add(figure(`account ${name} p95 (${TASKS.toLocaleString('en-US')} tasks)`, p95, 'ms', { target: TARGET_MS, better: 'lower' }));
    }
  },
};
