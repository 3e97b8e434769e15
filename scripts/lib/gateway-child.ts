// The gateway under test of scripts/fuzz.ts and scripts/hostile-load.ts, in a process of its own
// (started by gateway-process.ts): its event-loop hold, heap and RSS are then the gateway's alone,
// not mixed with the load generator's or the lying reference server's work (before, all three
// shared one process and one loop, and the fuzz's 125 ms "hold" was the lying server's pump).
// Driven over the IPC channel: one request, one answer, matched by id.
import { ledgerDiscrepancies } from '@mediagen/db';
import { startHostileStack, loopWatch, percentile } from './hostile-stack';

type Msg = { id: number; cmd: string; args?: Record<string, unknown> };

async function main(): Promise<void> {
  const label = process.env.HOSTILE_LABEL ?? 'hostile';
  const env = JSON.parse(process.env.HOSTILE_ENV ?? '{}') as Record<string, string>;
  const stack = await startHostileStack(label, env);
  let watch: ReturnType<typeof loopWatch> | null = null;
  let samples: { heap: number[]; rss: number[] } = { heap: [], rss: [] };
  let sampler: NodeJS.Timeout | undefined;

  const handlers: Record<string, (a: Record<string, unknown>) => Promise<unknown>> = {
    account: async (a) => stack.newAccount(Number(a.balanceCents), (a.extra ?? {}) as Record<string, unknown>),
    watchStart: async () => {
      watch?.stop();
      watch = loopWatch();
      samples = { heap: [], rss: [] };
      clearInterval(sampler);
      sampler = setInterval(() => {
        const m = process.memoryUsage();
        samples.heap.push(m.heapUsed);
        samples.rss.push(m.rss);
      }, 20);
      return true;
    },
    watchStop: async () => {
      watch?.stop();
      clearInterval(sampler);
      const w = watch!;
      const mb = (xs: number[]) => Math.round(Math.max(0, ...xs) / 2 ** 20);
      return {
        heldMax: w.max(),
        heldP99: w.p99(),
        // Wall-clock time of the worst hold, comparable across processes.
        heldMaxAtEpochMs: performance.timeOrigin + w.maxAt(),
        wallLatenessMax: w.wallMax(),
        heapPeakMB: mb(samples.heap),
        rssPeakMB: mb(samples.rss),
        heapP50MB: Math.round(percentile(samples.heap, 0.5) / 2 ** 20),
      };
    },
    ledger: async (a) => {
      const db = stack.deps.db;
      const tasks = await db.task.count();
      const charges = await db.ledgerEntry.count({ where: { kind: 'charge' } });
      const discrepancies = (await ledgerDiscrepancies(db)).length;
      const balances: Record<string, number> = {};
      for (const id of (a.accounts ?? []) as string[]) balances[id] = Number((await db.account.findUniqueOrThrow({ where: { id } })).balanceCents);
      return { tasks, charges, discrepancies, balances };
    },
    close: async () => {
      await stack.close();
      setImmediate(() => process.exit(0));
      return true;
    },
  };

  process.on('message', (m: Msg) => {
    const h = handlers[m.cmd];
    if (!h) return void process.send?.({ id: m.id, error: `unknown command ${m.cmd}` });
    h(m.args ?? {}).then(
      (result) => process.send?.({ id: m.id, result }),
      (e: Error) => process.send?.({ id: m.id, error: e.message }),
    );
  });
  process.send?.({ id: 0, result: { base: stack.base } });
}

main().catch((e) => {
  console.error(e);
  process.exit(2);
});
