// Webhook fairness: one account's 40 tasks whose callback_url accepts the connection and never
// answers, and meanwhile another account's events to a receiver that answers at once. Figures: the
// other account's delay from its task's settlement to the event's arrival (p50, p95), against the
// same delay on the quiet stack just before (the floor). Target: p50 under 500 ms.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BenchContext } from '../lib/context';
import { sleep } from '../lib/procs';
import { figure } from '../lib/report';
import { percentile } from '../lib/stats';
import type { Section } from './section';

const NOISY = 40;
const EVENTS = 20;
const IMAGE = { model: 'image-b-2.5', ratio: '16:9' };

async function run(ctx: BenchContext): Promise<void> {
  const { stack: s, db, log, add } = ctx;
  await ctx.ensureWorker();
  const [noisy, bystander] = await ctx.accounts('webhook-fairness', 2);
  const arrived = new Map<string, number>();
  const receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      arrived.set((JSON.parse(body) as { data: { taskId: string } }).data.taskId, Date.now());
      res.end();
    });
  });
  const silent = Array.from({ length: NOISY }, () => http.createServer(() => undefined));
  const listen = async (srv: http.Server) => {
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(srv.address() as AddressInfo).port}/hook`;
  };
  const submit = async (key: string, prompt: string, callbackUrl: string): Promise<string> => {
    const res = await fetch(`${s.base}/api/image/generate`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...IMAGE, prompt, callback_url: callbackUrl }),
    });
    const body = (await res.json()) as { taskId?: string };
    if (res.status !== 200 || !body.taskId) throw new Error(`submit: ${res.status} ${JSON.stringify(body)}`);
    return body.taskId;
  };
  /** Settlement-to-arrival delays of EVENTS events of the bystander, one every 50 ms. */
  const delays = async (label: string): Promise<number[]> => {
    const ids: string[] = [];
    for (let i = 0; i < EVENTS; i++) {
      ids.push(await submit(bystander.key, `webhook fairness ${label} ${i}`, receiverUrl));
      await sleep(50);
    }
    const until = Date.now() + 60_000;
    while (ids.some((id) => !arrived.has(id)) && Date.now() < until) await sleep(20);
    const rows = await db.task.findMany({ where: { id: { in: ids } }, select: { id: true, finishedAt: true } });
    return rows.filter((r) => r.finishedAt && arrived.has(r.id)).map((r) => arrived.get(r.id)! - r.finishedAt!.getTime()).sort((a, b) => a - b);
  };

  const receiverUrl = await listen(receiver);
  const silentUrls = await Promise.all(silent.map(listen));
  try {
    // The worker has just started: its first deliveries open pools and warm the code paths.
    await delays('warm-up');
    log(`webhook fairness: ${EVENTS} events of one account, quiet`);
    const quiet = await delays('quiet');
    log(`  quiet: p50 ${percentile(quiet, 50)} ms, p95 ${percentile(quiet, 95)} ms`);
    log(`  ${NOISY} failed tasks of another account whose callback_url never answers`);
    for (const [i, url] of silentUrls.entries()) await submit(noisy.key, `webhook fairness noisy ${i} #sim:fail`, url);
    // Their deliveries have started and hang.
    await sleep(1_000);
    const loaded = await delays('noisy');
    const lost = EVENTS - loaded.length;
    log(`  beside the silent receivers: p50 ${percentile(loaded, 50)} ms, p95 ${percentile(loaded, 95)} ms${lost ? `, ${lost} not arrived within 60 s` : ''}`);
    add(figure("webhook delay of another account beside 40 silent receivers, p50", lost ? Infinity : percentile(loaded, 50), 'ms', { floor: percentile(quiet, 50), target: 500, targetOn: 'value', better: 'lower' }));
    add(figure("webhook delay of another account beside 40 silent receivers, p95", lost ? Infinity : percentile(loaded, 95), 'ms', { floor: percentile(quiet, 95), better: 'lower' }));
  } finally {
    for (const srv of [receiver, ...silent]) {
      srv.closeAllConnections();
      srv.close();
    }
  }
}

export const webhookFairnessSection: Section = { name: 'webhook-fairness', run };
