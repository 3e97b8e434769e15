// Fair delivery (deliver.ts with fairness.ts) on the real Postgres and Redis: a URL the address
// policy refuses fails at once instead of being retried for a day; a destination that keeps
// failing backs off as a whole (its deliveries are not sent meanwhile, and a success ends it); and
// the account and destination slots cap what runs at once.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { createDb, Db, newId, resetDeliveryForResend } from '@mediagen/db';
import { createTestSchema, TestSchema } from '@mediagen/db/testing';
import { createConsumerRedis, deleteKeysWithPrefix } from '@mediagen/queue';
import { createDeliveryGate, deliverOnce, DeliverOptions, DeliveryGate, newWebhookSecret } from '@mediagen/webhooks';

let schema: TestSchema;
let db: Db;
const redis = createConsumerRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const prefix = `test-fair-${randomBytes(3).toString('hex')}`;
let server: http.Server;
let base: string;
let answer = 500;
let received = 0;
/** Runs while a request is being answered (before the answer is sent). */
let onRequest: (() => Promise<void>) | null = null;

const limits = { accountConcurrency: 2, destinationConcurrency: 1, destinationFailures: 3, backoffBaseMs: 60_000, backoffMaxMs: 600_000, leaseMs: 30_000 };
let gate: DeliveryGate;
const schedule = { baseMs: 1_000, maxDelayMs: 4_000, windowMs: 60_000 };
const opts = (over: Partial<DeliverOptions['send']> = {}): DeliverOptions => ({ schedule, gate, send: { allowPrivate: true, timeoutMs: 2_000, ...over } });

beforeAll(async () => {
  schema = await createTestSchema('webhook_fairness');
  db = createDb(schema.url);
  gate = createDeliveryGate(redis, prefix, limits);
  server = http.createServer((req, res) => {
    received += 1;
    req.resume();
    req.on('end', () => void (onRequest ?? (async () => undefined))().then(() => res.writeHead(answer).end()));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
  await db?.$disconnect();
  await schema?.drop();
});

async function delivery(url: string, accountId = newId('acc')): Promise<string> {
  if (!(await db.account.findUnique({ where: { id: accountId } }))) await db.account.create({ data: { id: accountId, name: 'fair' } });
  const endpoint = await db.webhookEndpoint.create({ data: { id: newId('wh'), accountId, url: null, events: ['task.failed'], secret: newWebhookSecret() } });
  const id = newId('msg');
  await db.webhookDelivery.create({
    data: { id, endpointId: endpoint.id, accountId, taskId: newId(), target: 'callback', url, eventType: 'task.failed', body: '{"type":"task.failed"}', nextAttemptAt: new Date() },
  });
  return id;
}

const attempts = (deliveryId: string) => db.webhookDeliveryAttempt.findMany({ where: { deliveryId }, orderBy: { attemptNo: 'asc' } });

it('a URL the address policy refuses fails the delivery at its first attempt', async () => {
  const id = await delivery('https://hooks.example.com/x');
  const out = await deliverOnce(db, id, opts({ allowPrivate: false, resolve: async () => [{ address: '10.1.2.3', family: 4 }] }));
  expect(out).toEqual({ kind: 'done', status: 'failed' });
  expect(await db.webhookDelivery.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: 'failed', nextAttemptAt: null, lastError: expect.stringMatching(/^refused: .*non-public address/) });
  expect(await attempts(id)).toHaveLength(1);
  // A host that does not resolve (DNS may come back) is retried as before.
  const dns = await delivery('https://nowhere.example.com/x');
  const later = await deliverOnce(db, dns, opts({ allowPrivate: false, resolve: async () => [] }));
  expect(later.kind).toBe('retry');
});

it('a destination that keeps failing backs off as a whole: nothing is sent to it until then, and a success ends it', async () => {
  const accountId = newId('acc');
  answer = 500;
  const before = received;
  // Three failed attempts in a row (three deliveries to the same origin, other paths).
  for (let i = 0; i < 3; i++) expect((await deliverOnce(db, await delivery(`${base}/a${i}`, accountId), opts())).kind).toBe('retry');
  expect(received - before).toBe(3);
  // The fourth delivery to that origin is not sent; it waits for the end of the backoff (60 s).
  const fourth = await delivery(`${base}/b`, accountId);
  const now = Date.now();
  const out = await deliverOnce(db, fourth, opts(), now);
  expect(received - before).toBe(3);
  expect(out.kind === 'retry' && out.at).toBeGreaterThanOrEqual(now + 55_000);
  expect(await attempts(fourth)).toEqual([expect.objectContaining({ statusCode: null, error: expect.stringContaining('not sent: the destination is backing off') })]);
  // Another account using the same host is not affected.
  answer = 200;
  expect(await deliverOnce(db, await delivery(`${base}/other`), opts())).toEqual({ kind: 'done', status: 'delivered' });
  // The destination recovers: one success (recorded here directly) ends the streak and the backoff.
  expect(await gate.outcome({ id: 'x', accountId, url: `${base}/b` }, true, Date.now())).toBe(0);
  await db.webhookDelivery.update({ where: { id: fourth }, data: { nextAttemptAt: new Date() } });
  expect(await deliverOnce(db, fourth, opts())).toEqual({ kind: 'done', status: 'delivered' });
});

it('slots: at most accountConcurrency attempts of one account and destinationConcurrency to one destination at once', async () => {
  const accountId = newId('acc');
  const now = Date.now();
  const a = await gate.enter({ id: 'd1', accountId, url: 'https://one.example.com/x' }, now);
  const sameDestination = await gate.enter({ id: 'd2', accountId, url: 'https://one.example.com/y' }, now);
  const b = await gate.enter({ id: 'd3', accountId, url: 'https://two.example.com/x' }, now);
  const third = await gate.enter({ id: 'd4', accountId, url: 'https://three.example.com/x' }, now);
  const otherAccount = await gate.enter({ id: 'd5', accountId: newId('acc'), url: 'https://one.example.com/x' }, now);
  expect([a.ok, sameDestination.ok, b.ok, third.ok, otherAccount.ok]).toEqual([true, false, true, false, true]);
  expect(!third.ok && third.retryAt).toBeGreaterThan(now);
  if (a.ok) await a.leave();
  expect((await gate.enter({ id: 'd4', accountId, url: 'https://three.example.com/x' }, Date.now())).ok).toBe(true);
  // A lease that was never given back lapses.
  expect((await gate.enter({ id: 'd6', accountId, url: 'https://four.example.com/x' }, now + limits.leaseMs + 1)).ok).toBe(true);
});

it('an admin re-send while an attempt is in flight is sent again, not lost under the first answer', async () => {
  answer = 200;
  const id = await delivery(`${base}/resend`);
  onRequest = async () => {
    onRequest = null;
    expect(await resetDeliveryForResend(db, id)).toBe(true);
  };
  const first = await deliverOnce(db, id, opts());
  expect(first.kind).toBe('retry');
  expect(await db.webhookDelivery.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: 'pending' });
  expect(await deliverOnce(db, id, opts())).toEqual({ kind: 'done', status: 'delivered' });
  expect(await attempts(id)).toHaveLength(2);
});
