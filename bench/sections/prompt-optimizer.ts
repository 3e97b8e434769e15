// optimize_prompt (docs/prompt-format.md): the time the rewrite step adds to a task's result. Pairs
// of video-a-h3 tasks with two inline pictures, the same render (#sim:delay), one with
// optimize_prompt and one without, submitted together; time to result is the task's own
// finishedAt - createdAt (database clock, no polling load). The simulator's optimizer answers at
// once, so the figure is our overhead (the step's HTTP round trip, the answer's checks, the decision's
// write, the processing mark); a real model adds its own answer time on top (seconds). A second part
// has the optimizer answer after 1 s, to show the added time follows the model's.
import fs from 'node:fs';
import path from 'node:path';
import type { BenchAccount } from '../lib/admin';
import type { BenchContext } from '../lib/context';
import { ROOT, sleep } from '../lib/procs';
import { figure } from '../lib/report';
import { percentile } from '../lib/stats';
import { jsonAuth } from '../lib/tasks';
import type { Section } from './section';

const PAIRS = Number(process.env.BENCH_OPT_PAIRS ?? 12);
const RENDER_MS = 500;
const PNG = `data:image/png;base64,${fs.readFileSync(path.join(ROOT, 'packages/media/test/fixtures/image.png')).toString('base64')}`;

async function submit(ctx: BenchContext, a: BenchAccount, prompt: string, optimize: boolean): Promise<string> {
  const body = {
    model: 'video-a-h3', prompt, duration: 5, resolution: '480p', ...(optimize ? { optimize_prompt: true } : {}),
    media: [{ type: 'image', url: PNG }, { type: 'image', url: PNG }],
  };
  const res = await fetch(`${ctx.stack.base}/api/video/generate`, { method: 'POST', headers: jsonAuth(a), body: JSON.stringify(body) });
  const b = (await res.json()) as { taskId?: string };
  if (res.status !== 200 || !b.taskId) throw new Error(`submit: ${res.status} ${JSON.stringify(b)}`);
  return b.taskId;
}

/** finishedAt - createdAt of each task once all completed, and whether each was rewritten. */
async function results(ctx: BenchContext, ids: string[]): Promise<Array<{ ms: number; optimized: boolean | null }>> {
  const until = Date.now() + 120_000;
  for (;;) {
    const rows = await ctx.db.task.findMany({ where: { id: { in: ids } }, select: { status: true, createdAt: true, finishedAt: true, promptOptimized: true } });
    if (rows.length === ids.length && rows.every((r) => r.status === 'completed' || r.status === 'failed')) {
      if (rows.some((r) => r.status === 'failed')) throw new Error('a task of the prompt-optimizer section failed');
      return rows.map((r) => ({ ms: r.finishedAt!.getTime() - r.createdAt.getTime(), optimized: r.promptOptimized }));
    }
    if (Date.now() > until) throw new Error('prompt-optimizer tasks did not settle within 120 s');
    await sleep(100);
  }
}

async function part(ctx: BenchContext, a: BenchAccount, label: string, directive: string): Promise<void> {
  const plain: string[] = [];
  const optimized: string[] = [];
  for (let i = 0; i < PAIRS; i++) {
    // A pair at a time, the same render for both; the prompts differ (the simulator groups calls by prompt).
    const tag = `${label}-${i}-${Date.now()}`;
    const [p, o] = await Promise.all([
      submit(ctx, a, `a fox <Picture 1> in the forest <Picture 2> #sim:delay=${RENDER_MS} ${tag}-p`, false),
      submit(ctx, a, `a fox <Picture 1> in the forest <Picture 2> #sim:delay=${RENDER_MS} ${directive} ${tag}-o`, true),
    ]);
    plain.push(p);
    optimized.push(o);
    await results(ctx, [p, o]);
  }
  const pr = (await results(ctx, plain)).map((r) => r.ms).sort((x, y) => x - y);
  const or = await results(ctx, optimized);
  if (or.some((r) => r.optimized !== true)) throw new Error(`prompt-optimizer ${label}: a rewrite fell back`);
  const os = or.map((r) => r.ms).sort((x, y) => x - y);
  const added = percentile(os, 50) - percentile(pr, 50);
  ctx.log(`prompt-optimizer ${label}: time to result p50 ${percentile(pr, 50)} ms without, ${percentile(os, 50)} ms with optimize_prompt (p90 ${percentile(pr, 90)} / ${percentile(os, 90)})`);
  ctx.add(figure(`optimize_prompt: added time to result p50, ${label}`, added, 'ms', { better: 'lower' }));
  ctx.add(figure(`optimize_prompt: time to result p50 with the rewrite, ${label} (${RENDER_MS} ms render)`, percentile(os, 50), 'ms', { floor: percentile(pr, 50), better: 'lower' }));
}

export const promptOptimizerSection: Section = {
  name: 'prompt-optimizer',
  async run(ctx) {
    await ctx.ensureWorker();
    const [a] = await ctx.accounts('bench-optimizer', 1);
    await part(ctx, a, 'optimizer answering at once', '');
    await part(ctx, a, 'optimizer answering after 1 s', '#sim:optimizer-delay=1000');
  },
};
