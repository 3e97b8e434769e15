// `npm run bench`: measures the service against floors taken in the same run on the same machine,
// and writes bench/results/latest.json. See docs/benchmark.md for what each figure means.
// This file only orchestrates: each measured phase is a section in bench/sections/ (index.ts lists
// them in order); `BENCH_ONLY=submit,poll` runs a subset, each section with its own floors.
import '@mediagen/runtime/node-version'; // first: one readable line on a Node older than 24.11
import os from 'node:os';
import path from 'node:path';
import IORedis from 'ioredis';
import { createDb, Db } from '@mediagen/db';
import { createContext, log } from './lib/context';
import { ROOT } from './lib/procs';
import { Figure, figure, formatTable, machineInfo, writeReport } from './lib/report';
import { MiB } from './lib/settings';
import { createStack, destroyStack, startSimAndGateway } from './lib/stack';
import { SECTIONS } from './sections';

function selectedSections() {
  const only = (process.env.BENCH_ONLY ?? '').split(',').map((n) => n.trim()).filter(Boolean);
  if (only.length === 0) return SECTIONS;
  const unknown = only.filter((n) => !SECTIONS.some((s) => s.name === n));
  if (unknown.length) throw new Error(`BENCH_ONLY: no section ${unknown.join(', ')} (sections: ${SECTIONS.map((s) => s.name).join(', ')})`);
  return SECTIONS.filter((s) => only.includes(s.name));
}

async function main(): Promise<void> {
  const started = Date.now();
  const sections = selectedSections();
  // Other work on a shared machine moves every figure; the report says how busy it was.
  const loadAverageAtStart = os.loadavg()[0];
  const report = { figures: [] as Figure[], floors: [] as Figure[] };
  log(`sections: ${sections.map((s) => s.name).join(', ')}`);
  log('preparing the bench database and starting provider-sim + gateway');
  const s = await createStack();
  let failed = true;
  let db: Db | null = null;
  try {
    await startSimAndGateway(s);
    db = createDb(s.databaseUrl, { poolSize: 4 });
    const ctx = createContext(s, db, report, sections.some((x) => x.needsPendingTasks));
    for (const section of sections) await section.run(ctx);

    const figures = [...report.figures];
    if (ctx.gatewayLoadPeaks.length) {
      figures.push(figure('gateway RSS peak under load (submit, poll, pipeline, in flight)', Math.max(...ctx.gatewayLoadPeaks) / MiB, 'MiB', { target: 250, better: 'lower' }));
    }
    figures.push(...report.floors);

    const [pg] = await db.$queryRaw<{ v: string }[]>`SHOW server_version`;
    const machine = await machineInfo({
      postgres: pg.v,
      redis: await redisVersion(s.redisUrl),
      loadGenerator: `autocannon ${require('autocannon/package.json').version}; polls: undici ${require('undici/package.json').version}`,
      sections: sections.map((x) => x.name),
      benchSeconds: Math.round((Date.now() - started) / 1000),
      loadAverage1m: { atStart: Number(loadAverageAtStart.toFixed(2)), atEnd: Number(os.loadavg()[0].toFixed(2)) },
    });
    const out = path.resolve(ROOT, process.env.BENCH_OUT ?? 'bench/results/latest.json');
    writeReport(out, machine, figures);
    console.log(
      `\n${formatTable(figures)}\n\nmachine: ${machine.cpuModel}, ${machine.cores} cores, Node ${machine.node}; ` +
        `load average ${loadAverageAtStart.toFixed(1)} at start, ${os.loadavg()[0].toFixed(1)} at end; ${machine.benchSeconds} s\nwritten: ${path.relative(ROOT, out)}`,
    );
    failed = false;
  } finally {
    await db?.$disconnect();
    const keep = failed || process.env.BENCH_KEEP_LOGS === '1';
    await destroyStack(s, keep);
    if (failed) console.error(`bench failed; logs kept in ${s.logDir}`);
    else if (keep) console.log(`logs kept in ${s.logDir}`);
  }
}

async function redisVersion(url: string): Promise<string> {
  const r = new IORedis(url);
  try {
    return /redis_version:(\S+)/.exec(await r.info('server'))?.[1] ?? 'unknown';
  } finally {
    r.disconnect();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
