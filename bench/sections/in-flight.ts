// In flight: IN_FLIGHT video renders of 60 s (MiniMax) through one worker; the simulator's count of renders in
// flight, the worker's RSS and steps/s, and submit/poll latency at light load meanwhile against the
// same probe on the quiet stack just before.
import type { BenchContext } from '../lib/context';
import { RssSampler, rssBytes, sleep } from '../lib/procs';
import { figure } from '../lib/report';
import { CONNECTIONS, IMAGE_BODY, IN_FLIGHT, MiB } from '../lib/settings';
import { fmt, idleRss, pollLoad, submitLoad, Submitted } from '../lib/tasks';
import type { Section } from './section';

const RENDER_MS = 60_000;
const FLIGHT_BODY = { model: 'video-a-h3', prompt: `benchmark #sim:delay=${RENDER_MS}`, duration: 2, resolution: '480p' };

async function run(ctx: BenchContext): Promise<void> {
  const { stack: s, log, add } = ctx;
  const pollPool = (await ctx.pendingTasks()).slice(0, 1000);
  const [probeAccount] = await ctx.accounts('probe', 1);
  const flightAccounts = await ctx.accounts('in-flight', Math.ceil(IN_FLIGHT / 5_000));
  const workerPid = await ctx.ensureWorker();

  // Probes: submit and poll latency at light load, quiet now and with IN_FLIGHT in flight.
  const probe = async () => {
    const into: Submitted[] = [];
    const sub = await submitLoad(s, [probeAccount], IMAGE_BODY, { connections: 8, duration: 5 }, into);
    const pol = await pollLoad(s, pollPool, { connections: 8, duration: 5 }, ['pending']);
    return { sub, pol };
  };
  log('probes (8 connections, 5 s each) on the quiet stack');
  const quiet = await probe();
  log(`  submit ${fmt(quiet.sub)}\n  poll ${fmt(quiet.pol)}`);

  log(`in flight: ${IN_FLIGHT} renders of ${RENDER_MS / 1000} s through one worker`);
  const simStats = async () => (await (await fetch(`http://127.0.0.1:${s.env.SIM_PORT}/stats`)).json()) as { inFlight: number; submits: number };
  const workerStats = async () => ((await (await fetch(`http://127.0.0.1:${s.env.WORKER_PORT}/stats`)).json()) as { stats: { steps: number } }).stats;
  const workerIdle = await idleRss(workerPid, 1000);
  const workerSampler = new RssSampler(workerPid, 100);
  const gatewaySampler = new RssSampler(ctx.gatewayPid, 50);
  const flightStart = Date.now();
  const flightTasks: Submitted[] = [];
  let peakInFlight = 0;
  let rssAtPeak = 0;
  let monitoring = true;
  const stepsAt0 = (await workerStats()).steps;
  const monitor = (async () => {
    while (monitoring) {
      const st = await simStats().catch(() => null);
      if (st && st.inFlight >= peakInFlight) {
        peakInFlight = st.inFlight;
        rssAtPeak = rssBytes(workerPid) ?? rssAtPeak;
      }
      await sleep(500);
    }
  })();
  // On an asynchronous upstream (MiniMax video): the image models now go to synchronous upstreams
  // (Seedream, Gemini), whose render holds the worker's submit call for its whole length, so only
  // WORKER_CONCURRENCY renders could be in flight and the queue stayed clogged after the section.
  const flightSubmit = await submitLoad(s, flightAccounts, FLIGHT_BODY, { connections: CONNECTIONS, amount: IN_FLIGHT }, flightTasks, 'video');
  log(`  submitted ${flightSubmit.ok} in ${flightSubmit.seconds.toFixed(1)} s (${fmt(flightSubmit)})`);
  // Wait until every render is in flight upstream, or the first ones are about to finish.
  while (peakInFlight < IN_FLIGHT && Date.now() - flightStart < RENDER_MS - 12_000) await sleep(500);
  log(`  ${peakInFlight} renders in flight at the simulator; probing the API`);
  const loaded = await probe();
  log(`  submit ${fmt(loaded.sub)}\n  poll ${fmt(loaded.pol)}`);
  // The first renders finish about RENDER_MS after their upstream submit; the peak is just before.
  while (Date.now() - flightStart < RENDER_MS + 5_000) await sleep(500);
  monitoring = false;
  await monitor;
  const stepsPerSecond = ((await workerStats()).steps - stepsAt0) / ((Date.now() - flightStart) / 1000);
  const worker = workerSampler.stop();
  ctx.gatewayLoadPeaks.push(gatewaySampler.stop().peak);
  log(
    `  peak ${peakInFlight} in flight; worker RSS idle ${(workerIdle / MiB).toFixed(0)} MiB, peak ${(worker.peak / MiB).toFixed(0)} MiB, ` +
      `at peak in flight ${(rssAtPeak / MiB).toFixed(0)} MiB; ${stepsPerSecond.toFixed(0)} steps/s`,
  );
  // Which renders were not in flight at the peak, and why: a render sent after the first one had
  // ended never overlapped it. From the rows: when each task's first step ran (its attempt row)
  // and when its submit left, against the first submit.
  const [late] = await ctx.db.$queryRawUnsafe<{ first: Date | null; last: Date | null; after: bigint; unsent: bigint; waitP50: number | null; waitMax: number | null }[]>(
    `SELECT min(a."submitSentAt") AS first, max(a."submitSentAt") AS last,
            count(*) FILTER (WHERE a."submitSentAt" >= (SELECT min("submitSentAt") FROM "TaskAttempt" x JOIN "Task" y ON y.id = x."taskId" WHERE y."accountId" = ANY($1)) + make_interval(secs => $2)) AS after,
            count(*) FILTER (WHERE a."submitSentAt" IS NULL) AS unsent,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM a."createdAt" - t."createdAt")) AS "waitP50",
            max(extract(epoch FROM a."createdAt" - t."createdAt")) AS "waitMax"
       FROM "Task" t LEFT JOIN "TaskAttempt" a ON a."taskId" = t.id AND a."attemptNo" = 1
      WHERE t."accountId" = ANY($1)`,
    flightAccounts.map((a) => a.id),
    RENDER_MS / 1000,
  );
  const spread = late.first && late.last ? (late.last.getTime() - late.first.getTime()) / 1000 : NaN;
  log(
    `  submits left over ${spread.toFixed(1)} s (a render ends ${RENDER_MS / 1000} s after it left); ${Number(late.after)} left after the first render had ended, ` +
      `${Number(late.unsent)} never left; a task's first step ran after its submit p50 ${Number(late.waitP50 ?? NaN).toFixed(1)} s, max ${Number(late.waitMax ?? NaN).toFixed(1)} s`,
  );
  add(figure('renders in flight at once (peak)', peakInFlight, 'renders', { target: IN_FLIGHT, better: 'higher' }));
  add(figure('in-flight renders sent after the first render had ended', Number(late.after) + Number(late.unsent), 'renders', { better: 'lower' }));
  add(figure(`worker RSS peak with ${IN_FLIGHT} renders in flight`, worker.peak / MiB, 'MiB', { target: 300, better: 'lower' }));
  add(figure('worker RSS idle', workerIdle / MiB, 'MiB', { better: 'lower' }));
  add(figure('worker steps per second while in flight', stepsPerSecond, 'steps/s', { better: 'higher' }));
  add(figure('in-flight submit p50 (8 connections)', loaded.sub.p50, 'ms', { floor: quiet.sub.p50, better: 'lower' }));
  add(figure('in-flight submit p99 (8 connections)', loaded.sub.p99, 'ms', { floor: quiet.sub.p99, better: 'lower' }));
  add(figure('in-flight poll p50 (8 connections)', loaded.pol.p50, 'ms', { floor: quiet.pol.p50, better: 'lower' }));
  add(figure('in-flight poll p99 (8 connections)', loaded.pol.p99, 'ms', { floor: quiet.pol.p99, better: 'lower' }));
  add(figure('in-flight responses failing their check', flightSubmit.bad + flightSubmit.errors + loaded.sub.bad + loaded.pol.bad, 'responses', { target: 0, better: 'lower' }));
}

export const inFlightSection: Section = { name: 'in-flight', needsPendingTasks: true, run };
