// Webhook delivery fairness: one account whose 40 callback destinations accept the connection and
// never answer must not delay another account's events. Before, the 40 deliveries held the 20
// delivery slots for the whole attempt deadline (10 s each) and the other account's event came
// after about 15 s; now an account holds at most WEBHOOK_ACCOUNT_CONCURRENCY slots and a silent
// receiver is cut at its first-byte deadline, so the other account's p50 stays under 500 ms.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTaskWithCharge, creditAccount, newId } from '@mediagen/db';
import { settleFailed } from '../src/settle';
import { eventually, waitFor } from '../../../test/e2e/support/wait';
import { InProcess, startInProcess } from './in-process';

jest.setTimeout(60_000);

let w: InProcess;
const hanging: http.Server[] = [];
let receiver: http.Server;
const arrived = new Map<string, number>();
/** Requests the silent destinations have received (and will never answer). */
let hangingRequests = 0;

const listen = async (s: http.Server) => {
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
};

beforeAll(async () => {
  // The defaults that matter here (20 slots, 10 s attempts); the reconciler must not run the tasks.
  w = await startInProcess((sim) => ({ channels: [{ id: 'sim', baseUrl: `${sim}/ch/sim`, apiKey: 'k', costOrder: 1, models: { 'video-a-h3': 'x' } }] }), {
    ALLOW_PRIVATE_MEDIA_URLS: 'true', RECONCILE_GRACE_MS: '600000', WEBHOOK_CONCURRENCY: '20', WEBHOOK_TIMEOUT_MS: '10000',
  });
  for (let i = 0; i < 40; i++) hanging.push(http.createServer(() => void hangingRequests++)); // reads the request, never answers
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      arrived.set((JSON.parse(body) as { data: { taskId: string } }).data.taskId, Date.now());
      res.end('ok');
    });
  });
});

afterAll(async () => {
  for (const s of [...hanging, receiver]) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  await w?.stop();
});

/** A task of `accountId` with this callback_url, failed (refunded) at once: its event goes out. */
async function settledTaskWithCallback(accountId: string, callbackUrl: string): Promise<string> {
  const taskId = newId();
  await createTaskWithCharge(w.db, {
    taskId, accountId, type: 'video', model: 'video-a-h3', params: { type: 'video', model: 'video-a-h3', prompt: 'p' }, costCents: 7, costMicros: 70_000n,
    billedSeconds: 2, deadlineAt: new Date(Date.now() + 3_600_000), callbackUrl,
  });
  await settleFailed(w.app.ctx, taskId, 'generation_failed');
  return taskId;
}

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

it("another account's deliveries stay fast while one account's 40 destinations hang", async () => {
  const hangingUrls = await Promise.all(hanging.map(listen));
  const receiverUrl = await listen(receiver);
  const other = newId('acc');
  await w.db.account.create({ data: { id: other, name: 'bystander', maxConcurrentTasks: 1000 } });
  await creditAccount(w.db, other, 10_000, 'test');

  for (const url of hangingUrls) await settledTaskWithCallback(w.accountId, `${url}/hook`);
  // The noisy account's deliveries have taken all the slots it may hold and hang.
  const slots = Math.min(w.app.ctx.config.WEBHOOK_ACCOUNT_CONCURRENCY, hanging.length);
  await waitFor(() => hangingRequests >= slots, 15_000, `${slots} hanging deliveries`);

  // Ten events of another account while those hang, one every 50 ms.
  const sent = new Map<string, number>();
  for (let i = 0; i < 10; i++) {
    const at = Date.now();
    sent.set(await settledTaskWithCallback(other, `${receiverUrl}/hook`), at);
    await new Promise((r) => setTimeout(r, 50)); // the load's shape (one event every 50 ms), not a wait for something
  }
  await waitFor(() => [...sent.keys()].every((id) => arrived.has(id)), 30_000, 'the other account\'s events').catch(() => undefined);
  expect([...sent.keys()].filter((id) => !arrived.has(id))).toEqual([]);
  const latencies = [...sent].map(([id, at]) => arrived.get(id)! - at);
  const p50 = percentile(latencies, 50);
  console.log(`webhook fairness: other account p50 ${p50} ms, max ${Math.max(...latencies)} ms (${latencies.join(', ')})`);
  expect(p50).toBeLessThan(500);
  // The noisy account's attempts were cut at the first-byte deadline, not the 10 s attempt deadline.
  const cut = await eventually('a noisy attempt recorded', () => w.db.webhookDeliveryAttempt.findFirst({ where: { delivery: { accountId: w.accountId } } }));
  expect(cut).toMatchObject({ statusCode: null, error: expect.stringContaining('no answer within 5000 ms') });
});
