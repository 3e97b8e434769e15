// SIGTERM under load loses nothing. A worker stopped with many renders in flight finishes its
// running steps and exits 0; another worker picks every task up, and each task is rendered once,
// charged once and never refunded. A gateway stopped mid-request finishes every request it had
// accepted (complete 200 answers for tasks that exist and are charged once) and exits 0.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Account, apiClient } from './support/api';
import type { Stack } from './support/stack';
import { e2eSuite } from './support/suite';
import { eventually } from './support/wait';

jest.setTimeout(60_000);

let stack: Stack;
let api: ReturnType<typeof apiClient>;
let account: Account;

e2eSuite('shutdown', { stack: { workers: 1, env: { LOG_LEVEL: 'info' } }, balanceCents: 1_000_000, maxConcurrentTasks: 200 }, (s) => ({ stack, api, account } = s));

/** Every task of the list settled in Postgres (the gateway may be gone by then). */
const allSettled = (ids: string[], timeoutMs: number) =>
  eventually('every task to settle', async () => {
    const rows = await stack.db.task.findMany({ where: { id: { in: ids } }, select: { id: true, status: true } });
    return rows.length === ids.length && rows.every((t) => t.status === 'completed' || t.status === 'failed') ? rows : null;
  }, timeoutMs);

const ledgerKinds = async (ids: string[]) => {
  const entries = await stack.db.ledgerEntry.findMany({ where: { taskId: { in: ids } }, select: { taskId: true, kind: true } });
  const byTask = new Map(ids.map((id) => [id, [] as string[]]));
  for (const e of entries) byTask.get(e.taskId!)!.push(e.kind);
  return [...byTask.values()];
};

it('SIGTERM on a worker with many renders in flight: another worker completes every task, once each', async () => {
  const [w1] = stack.workers;
  // Renders of 1.5 s; a third of the submits are slow, so the signal lands in the middle of steps.
  const submits = await Promise.all(
    Array.from({ length: 30 }, (_, i) =>
      api.submit(account, 'video', {
        model: 'video-a-h3',
        prompt: `wave ${i} #sim:delay=1500${i % 3 === 0 ? ' #sim:slow-submit=800' : ''}`,
        duration: 2,
        resolution: '480p',
      }),
    ),
  );
  for (const s of submits) expect(s.status).toBe(200);
  const ids = submits.map((s) => String(s.body.taskId));
  await eventually('renders in flight', async () => (await stack.db.taskAttempt.count({ where: { taskId: { in: ids }, status: 'running' } })) >= 10);

  const t0 = Date.now();
  w1.child.kill('SIGTERM');
  expect((await w1.exited).code).toBe(0);
  expect(Date.now() - t0).toBeLessThan(5_000); // inside SHUTDOWN_TIMEOUT_MS: the drain finished
  const log = fs.readFileSync(w1.logFile, 'utf8');
  expect(log).toContain('"msg":"worker stopped"');
  expect(log).not.toContain('shutdown deadline reached');

  await stack.startWorker();
  const settled = await allSettled(ids, 40_000);
  expect(settled.map((t) => t.status)).toEqual(ids.map(() => 'completed'));
  // Nothing lost, nothing twice: one render upstream, one attempt, one charge and no refund per task.
  for (const id of ids) {
    const sim = await api.simTask(id);
    expect({ id, renders: sim.renders.length }).toEqual({ id, renders: 1 });
  }
  expect(await stack.db.taskAttempt.count({ where: { taskId: { in: ids } } })).toBe(ids.length);
  expect(await ledgerKinds(ids)).toEqual(ids.map(() => ['charge']));
});

it('SIGTERM on the gateway mid-request: every accepted request gets its complete answer, and no task is lost or charged twice', async () => {
  // Reference images from a local server that answers slowly: the submits are inside the gateway
  // (measuring their references) when the signal comes.
  const png = fs.readFileSync(path.resolve(__dirname, '../../packages/media/test/fixtures/image.png'));
  let received = 0;
  const slow = http.createServer((_req, res) => {
    received += 1;
    setTimeout(() => res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': png.length }).end(png), 1_500);
  });
  await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
  const slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
  try {
    const N = 10;
    // One account per submit: an account may have only MAX_INSPECTIONS_PER_ACCOUNT reference
    // inspections running at once (fetch-precheck.ts), and all ten must be inside the gateway.
    const accounts = await Promise.all(Array.from({ length: N }, () => api.newAccount(10_000)));
    const pending = Array.from({ length: N }, (_, i) =>
      api.submit(accounts[i], 'image', { model: 'image-b-2.5', prompt: `slow reference ${i}`, images: [`${slowUrl}/ref-${i}.png`] }),
    );
    await eventually('every submit to be fetching its reference', async () => received >= N);

    stack.gateway.child.kill('SIGTERM');
    // Stopped accepting: a new connection is refused while the accepted requests run on.
    await eventually('the listener to close', async () => fetch(`${stack.gatewayUrl}/healthz`).then(() => false, () => true), 2_000);

    const answers = await Promise.all(pending);
    expect(answers.map((a) => a.status)).toEqual(Array(N).fill(200));
    const ids = answers.map((a) => String(a.body.taskId));
    expect(new Set(ids).size).toBe(N);
    expect((await stack.gateway.exited).code).toBe(0);

    // The tasks exist, each charged once, and the worker finishes them without the gateway.
    const settled = await allSettled(ids, 20_000);
    expect(settled.map((t) => t.status)).toEqual(ids.map(() => 'completed'));
    expect(await ledgerKinds(ids)).toEqual(ids.map(() => ['charge']));
  } finally {
    slow.closeAllConnections();
    await new Promise((r) => slow.close(r));
  }
});
