// The report: one entry per figure, in bench/results/latest.json and as a table on stdout.
// A figure with a `floor` is judged on `ratio` (value / floor); one without, on `value` itself.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface Figure {
  name: string;
  value: number;
  unit: string;
  /** What the same work costs with the layers under test removed, measured in the same run. */
  floor: number | null;
  /** value / floor. */
  ratio: number | null;
  /** Compared with `ratio` when there is a floor, with `value` otherwise (or when `targetOn` is 'value'). */
  target: number | null;
  /** What `target` is compared with: 'ratio' (value / floor) or 'value'. */
  targetOn: 'ratio' | 'value';
  better: 'higher' | 'lower';
  /** null when the figure has no target. */
  met: boolean | null;
}

export function figure(
  name: string,
  value: number,
  unit: string,
  /** `targetOn: 'value'`: an absolute target on a figure that still reports its floor and ratio. */
  opts: { floor?: number | null; target?: number | null; targetOn?: 'ratio' | 'value'; better: 'higher' | 'lower' },
): Figure {
  const floor = opts.floor ?? null;
  const ratio = floor !== null && floor > 0 && Number.isFinite(value) ? value / floor : null;
  const target = opts.target ?? null;
  const targetOn = floor !== null && opts.targetOn !== 'value' ? 'ratio' : 'value';
  const judged = targetOn === 'ratio' ? ratio : value;
  const met =
    target === null ? null : judged === null || !Number.isFinite(judged) ? false : opts.better === 'higher' ? judged >= target : judged <= target;
  return { name, value: round(value), unit, floor: floor === null ? null : round(floor), ratio: ratio === null ? null : round(ratio, 3), target, targetOn, better: opts.better, met };
}

const round = (v: number, digits = 2): number => (Number.isFinite(v) ? Number(v.toFixed(digits)) : v);

export async function machineInfo(extra: Record<string, unknown>): Promise<Record<string, unknown>> {
  const cpus = os.cpus();
  let commit: string | null = null;
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    /* not a git checkout */
  }
  return {
    cpuModel: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memoryGiB: Number((os.totalmem() / 2 ** 30).toFixed(1)),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    commit,
    date: new Date().toISOString(),
    ...extra,
  };
}

export function writeReport(file: string, machine: Record<string, unknown>, figures: Figure[]): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify({ machine, figures }, null, 2)}\n`);
}

export function formatTable(figures: Figure[]): string {
  const fmt = (v: number | null) => (v === null ? '-' : Math.abs(v) >= 100 ? v.toFixed(0) : v.toString());
  const rows = figures.map((f) => [
    f.name,
    `${fmt(f.value)} ${f.unit}`,
    f.floor === null ? '-' : `${fmt(f.floor)} ${f.unit}`,
    f.ratio === null ? '-' : f.ratio.toFixed(2),
    f.target === null ? '-' : `${f.better === 'higher' ? '>=' : '<='} ${f.target}${f.targetOn === 'ratio' ? 'x' : ` ${f.unit}`}`,
    f.met === null ? '' : f.met ? 'yes' : 'NO',
  ]);
  const head = ['figure', 'value', 'floor', 'ratio', 'target', 'met'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
