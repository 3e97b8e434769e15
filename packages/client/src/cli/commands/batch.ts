// mediagen batch prompts.jsonl --out results/ [--concurrency N] [--key-prefix P] [--json]
// One generate body per line ({model, prompt, ...}; the model says video or image). Every line is
// checked before anything is submitted; then mg.batch runs them (at most N in progress, 429s waited
// out, keys derived from each line so a re-run after a crash charges nothing twice) with a progress
// bar, saves each result file into the folder as <line>-<taskId>.<ext>, writes results.jsonl there
// (one outcome per line) and prints a summary. Exit 0 when every line completed, 1 otherwise.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { SingleBar } from 'cli-progress';
import { ApiError } from '../../errors';
import type { BatchItem, BatchOutcome, BatchProgress } from '../../resources/batch';
import type { Context } from '../context';
import { positive } from '../context';
import { EXIT, UsageError } from '../exit-codes';
import { saveResult } from '../save';

export const usage = 'mediagen batch <prompts.jsonl> --out <dir> [--concurrency <n>] [--key-prefix <text>] [--json]';

/** The bodies of a JSONL file; a line that is not a JSON object with a model is a usage error naming it. */
export function readJsonl(file: string): { line: number; item: BatchItem }[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`Cannot read ${file}: ${(err as Error).message}`);
  }
  const out: { line: number; item: BatchItem }[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    if (raw.trim() === '') return;
    let v: unknown;
    try {
      v = JSON.parse(raw);
    } catch {
      throw new UsageError(`${file}:${i + 1}: not JSON`);
    }
    if (!v || typeof v !== 'object' || Array.isArray(v) || typeof (v as { model?: unknown }).model !== 'string')
      throw new UsageError(`${file}:${i + 1}: expected a generate body, a JSON object with "model" (and "prompt", ...)`);
    out.push({ line: i + 1, item: v as BatchItem });
  });
  if (!out.length) throw new UsageError(`${file} has no lines to generate`);
  return out;
}

const extensionOf = (url: string, type: string) => path.extname(new URL(url).pathname) || (type === 'image' ? '.png' : '.mp4');

export async function run(ctx: Context, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      out: { type: 'string', short: 'o' },
      concurrency: { type: 'string' },
      'key-prefix': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  if (positionals.length !== 1 || !values.out) throw new UsageError(`Give the JSONL file and --out: ${usage}`);
  const concurrency = positive('concurrency', values.concurrency);
  if (concurrency !== undefined && !Number.isInteger(concurrency)) throw new UsageError('--concurrency must be a whole number');
  const lines = readJsonl(positionals[0]);
  const dir = values.out;
  fs.mkdirSync(dir, { recursive: true });
  const mg = ctx.client();

  const bar = !values.json && ctx.io.tty ? new SingleBar({ format: 'batch [{bar}] {value}/{total} | {completed} completed, {failed} failed, {refused} refused | {inFlight} in progress | {duration_formatted}', stream: process.stderr, hideCursor: true }) : null;
  bar?.start(lines.length, 0, { completed: 0, failed: 0, refused: 0, inFlight: 0 });
  const saves: Promise<void>[] = [];
  const files = new Map<number, string>();
  const onProgress = (p: BatchProgress, o?: BatchOutcome) => {
    bar?.update(p.done, { completed: p.completed, failed: p.failed, refused: p.refused, inFlight: p.inFlight });
    if (!bar && !values.json && o) ctx.io.err(`${p.done}/${p.total} line ${lines[o.index].line}: ${o.status}${o.taskId ? ` ${o.taskId}` : ''}`);
    const url = o?.task?.status === 'completed' ? o.task.resultUrls?.[0] : undefined;
    if (o && url) {
      const file = path.join(dir, `${lines[o.index].line}-${o.taskId}${extensionOf(url, o.task!.type)}`);
      saves.push(
        saveResult(url, file, ctx.signal()).then(
          () => void files.set(o.index, file),
          (err) => ctx.io.err(`line ${lines[o.index].line}: result not saved: ${(err as Error).message}`),
        ),
      );
    }
  };
  let outcomes: BatchOutcome[];
  try {
    outcomes = await mg.batch(
      lines.map((l) => l.item),
      { concurrency, keyPrefix: values['key-prefix'], onProgress, signal: ctx.signal() },
    );
  } finally {
    bar?.stop();
  }
  await Promise.all(saves);

  const rows = outcomes.map((o) => ({
    line: lines[o.index].line,
    status: o.status,
    ...(o.taskId ? { taskId: o.taskId } : {}),
    ...(o.task?.status === 'failed' ? { errorCode: o.task.errorCode, retryable: o.task.retryable } : {}),
    ...(o.task?.resultUrls ? { resultUrls: o.task.resultUrls } : {}),
    ...(files.has(o.index) ? { file: path.basename(files.get(o.index)!) } : {}),
    ...(o.error ? { error: o.error instanceof ApiError ? { status: o.error.status, code: o.error.code, message: o.error.message } : { message: o.error.message } } : {}),
    idempotencyKey: o.idempotencyKey,
  }));
  fs.writeFileSync(path.join(dir, 'results.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const count = (s: string) => rows.filter((r) => r.status === s).length;
  const summary = { total: rows.length, completed: count('completed'), failed: count('failed'), refused: count('refused'), saved: files.size, out: dir };
  if (values.json) ctx.io.out(JSON.stringify(summary));
  else {
    ctx.io.out(`${summary.completed} completed, ${summary.failed} failed (refunded), ${summary.refused} refused, of ${summary.total}; ${summary.saved} files and results.jsonl in ${dir}`);
    for (const r of rows.filter((x) => x.status !== 'completed')) ctx.io.out(`  line ${r.line}: ${r.status} ${r.errorCode ?? r.error?.code ?? r.error?.message ?? ''}`);
  }
  return summary.completed === summary.total ? EXIT.ok : EXIT.taskFailed;
}
