// Submit, against its write floor (the same billing transaction + BullMQ add without HTTP), and
// the ledger check afterwards. The accepted tasks are kept pending for the poll section.
import { ledgerDiscrepancies } from '@mediagen/db';
import type { BenchContext } from '../lib/context';
import { runToJson } from '../lib/procs';
import { figure } from '../lib/report';
import { BALANCE, CONNECTIONS, IMAGE_BODY, PHASE_SECONDS, SUBMIT_SECONDS, WARMUP_SECONDS, MiB } from '../lib/settings';
import { fmt, submitLoad, Submitted, withRss } from '../lib/tasks';
import type { Section } from './section';

const mean = (a: number, b: number) => (a + b) / 2;

async function run(ctx: BenchContext): Promise<void> {
  const { stack: s, db, log, add } = ctx;
  const submitAccounts = await ctx.accounts('submit', CONNECTIONS);
  const floorAccounts = await ctx.accounts('write-floor', CONNECTIONS);
  const writeFloorRun = (when: string) =>
    runToJson<{ ops: number; rps: number; p50: number; p99: number; cpuUsPerOp: number }>(
      `write-floor-${when}`,
      'bench/floors/write-floor.ts',
      { ...s.env, ACCOUNTS: floorAccounts.map((a) => a.id).join(','), CONCURRENCY: String(CONNECTIONS), DURATION_MS: String(PHASE_SECONDS * 1000), BODY: JSON.stringify(IMAGE_BODY) },
      s.logDir,
    );
  log(`write floor (before): billing transaction + BullMQ add, ${CONNECTIONS} concurrent, ${PHASE_SECONDS} s`);
  const writeFloorBefore = await writeFloorRun('before');
  log(`  ${writeFloorBefore.rps.toFixed(0)}/s p50=${writeFloorBefore.p50.toFixed(1)}ms p99=${writeFloorBefore.p99.toFixed(1)}ms`);

  const submitted: Submitted[] = [];
  await submitLoad(s, submitAccounts, IMAGE_BODY, { connections: CONNECTIONS, duration: WARMUP_SECONDS }, submitted);
  log(`submit: POST /api/image/generate, ${CONNECTIONS} connections over ${submitAccounts.length} accounts, ${SUBMIT_SECONDS} s`);
  const submitRun = await withRss(ctx.gatewayPid, () => submitLoad(s, submitAccounts, IMAGE_BODY, { connections: CONNECTIONS, duration: SUBMIT_SECONDS }, submitted));
  const submit = submitRun.out;
  ctx.gatewayLoadPeaks.push(submitRun.peak);
  log(`  ${fmt(submit)}; gateway RSS peak ${(submitRun.peak / MiB).toFixed(0)} MiB`);
  log(`write floor (after)`);
  const writeFloorAfter = await writeFloorRun('after');
  log(`  ${writeFloorAfter.rps.toFixed(0)}/s p50=${writeFloorAfter.p50.toFixed(1)}ms p99=${writeFloorAfter.p99.toFixed(1)}ms`);
  const writeFloor = {
    rps: mean(writeFloorBefore.rps, writeFloorAfter.rps),
    p99: mean(writeFloorBefore.p99, writeFloorAfter.p99),
    cpuUs: mean(writeFloorBefore.cpuUsPerOp, writeFloorAfter.cpuUsPerOp),
  };
  const submitCpuUs = (submitRun.cpuMs * 1000) / submit.total;
  ctx.keepPending(submitted);

  // The ledger afterwards: balance == sum(ledger) for every account; every accepted submit has its
  // task and exactly one charge; the submit accounts lost exactly what their tasks cost. A request
  // still in flight when a run stops may have committed a task whose answer nobody read: at most
  // one per connection and run, reported but not counted as a problem.
  const discrepancies = await ledgerDiscrepancies(db);
  const ids = submitAccounts.map((a) => a.id);
  const accepted = submitted.map((t) => t.taskId);
  const [counts] = await db.$queryRaw<{ tasks: bigint; charges: bigint; charged: bigint; costs: bigint; balances: bigint; acceptedOk: bigint }[]>`
    SELECT (SELECT count(*) FROM "Task" WHERE "accountId" = ANY(${ids})) AS tasks,
           (SELECT count(*) FROM "LedgerEntry" WHERE "accountId" = ANY(${ids}) AND kind = 'charge') AS charges,
           (SELECT COALESCE(-sum("amountCents"), 0) FROM "LedgerEntry" WHERE "accountId" = ANY(${ids}) AND kind = 'charge') AS charged,
           (SELECT COALESCE(sum("costCents"), 0) FROM "Task" WHERE "accountId" = ANY(${ids})) AS costs,
           (SELECT sum("balanceCents") FROM "Account" WHERE "id" = ANY(${ids})) AS balances,
           (SELECT count(*) FROM "Task" t WHERE t."id" = ANY(${accepted})
               AND (SELECT count(*) FROM "LedgerEntry" l WHERE l."taskId" = t."id" AND l.kind = 'charge') = 1) AS "acceptedOk"`;
  const unanswered = Number(counts.tasks) - accepted.length;
  const ledgerProblems =
    discrepancies.length +
    (accepted.length - Number(counts.acceptedOk)) +
    Math.abs(Number(counts.tasks) - Number(counts.charges)) +
    (Number(counts.charged) === Number(counts.costs) && Number(counts.balances) === BALANCE * ids.length - Number(counts.charged) ? 0 : 1) +
    (unanswered < 0 || unanswered > 2 * CONNECTIONS ? 1 : 0);
  log(
    `  ledger: ${discrepancies.length} accounts off; ${counts.acceptedOk}/${accepted.length} accepted submits with their task and one charge; ` +
      `${counts.tasks} tasks, ${counts.charges} charges (${unanswered} committed while their answer was in flight at a run's end)`,
  );

  add(figure('submit throughput', submit.rps, 'req/s', { floor: writeFloor.rps, target: 0.5, better: 'higher' }));
  add(figure('submit latency p50', submit.p50, 'ms', { better: 'lower' }));
  add(figure('gateway CPU per submit (vs the write floor process per op)', submitCpuUs, 'us', { floor: writeFloor.cpuUs, better: 'lower' }));
  // Floor-relative: at most 1.5x the write floor's own p99 in the same run.
  add(figure('submit latency p99 (vs the write floor p99)', submit.p99, 'ms', { floor: writeFloor.p99, target: 1.5, better: 'lower' }));
  add(figure('submit responses failing their check', submit.bad + submit.errors, 'responses', { target: 0, better: 'lower' }));
  add(figure('ledger discrepancies after submit', ledgerProblems, 'count', { target: 0, better: 'lower' }));
  ctx.addFloor(figure('floor: billing transaction + BullMQ add, no HTTP', writeFloor.rps, 'ops/s', { better: 'higher' }));
  ctx.addFloor(figure('floor: billing transaction + BullMQ add p99', writeFloor.p99, 'ms', { better: 'lower' }));
}

export const submitSection: Section = { name: 'submit', run };
