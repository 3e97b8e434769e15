// Two or more bench reports side by side (e.g. the same tree on two Node versions):
//   npx tsx bench/compare.ts bench/results/node20.json bench/results/node24.json
// For a figure with a floor it prints the ratio to that run's own floor (what compares across runs
// on a shared machine), else the value; then each run's Node, load average and duration.
import '@mediagen/runtime/node-version'; // first: one readable line on a Node older than 24.11
import fs from 'node:fs';
import path from 'node:path';
import type { Figure } from './lib/report';

interface Report {
  machine: { node?: string; commit?: string; date?: string; benchSeconds?: number; loadAverage1m?: { atStart: number; atEnd: number } };
  figures: Figure[];
}

const files = process.argv.slice(2);
if (files.length < 2) {
  console.error('usage: npx tsx bench/compare.ts <report.json> <report.json> [...]');
  process.exit(2);
}
const reports = files.map((f) => JSON.parse(fs.readFileSync(f, 'utf8')) as Report);

const cell = (f: Figure | undefined): string => {
  if (!f) return '-';
  if (f.ratio !== null) return `${f.ratio.toFixed(2)}x (${f.value} / ${f.floor} ${f.unit})`;
  return `${f.value} ${f.unit}`;
};
const names = [...new Set(reports.flatMap((r) => r.figures.map((f) => f.name)))];
const header = ['figure', ...reports.map((r, i) => `${path.basename(files[i])} (${r.machine.node ?? '?'})`)];
const rows = names.map((n) => [n, ...reports.map((r) => cell(r.figures.find((f) => f.name === n)))]);
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i])).join('  ');
console.log(line(header));
for (const r of rows) console.log(line(r));
console.log('');
reports.forEach((r, i) => {
  const m = r.machine;
  const load = m.loadAverage1m ? `load average ${m.loadAverage1m.atStart} at start, ${m.loadAverage1m.atEnd} at end` : 'load average ?';
  console.log(`${files[i]}: Node ${m.node ?? '?'}, commit ${m.commit ?? '?'}, ${m.date ?? '?'}, ${load}, ${m.benchSeconds ?? '?'} s`);
});
