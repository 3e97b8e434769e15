// The gateway's per-process state (key cache, failure limiter, rate-limit reservations, poll cache,
// batched reads, event streams, settle context, media policy, inspection slots, mailer) is built in
// createDeps: two deps in one process (two gateways in a test, the benchmark) share none of it, and
// every app built on one deps uses that deps' own instances, never a copy of its own.
import request from 'supertest';
import type { Request } from 'express';
import { startHarness, Harness } from './harness';
import { closeDeps, createDeps, GatewayDeps } from '../src/deps';
import { createApp } from '../src/app';

let h: Harness;
let other: GatewayDeps;
beforeAll(async () => {
  h = await startHarness('deps-parts');
  other = await createDeps(h.deps.config);
});
afterAll(async () => {
  await closeDeps(other);
  await h.close();
});

const video = { model: 'video-b-2.0', prompt: 'a red fox in the snow', duration: 4 };
const asRequest = (auth: { Authorization: string }) => ({ headers: { authorization: auth.Authorization } }) as unknown as Request;

it('two deps get separate instances of every part (the config they were given aside)', () => {
  const keys = Object.keys(h.deps) as (keyof GatewayDeps)[];
  expect(keys).toEqual(expect.arrayContaining(['apiKeys', 'authFailures', 'accountRateLimit', 'pollCache', 'taskReads', 'taskStreams', 'settleContext', 'inspections']));
  const shared = keys.filter((k) => k !== 'config' && h.deps[k] !== null && h.deps[k] === other[k]);
  expect(shared).toEqual([]);
});

it("one deps gets one of each: another app on it fills the deps' own key cache and poll cache", async () => {
  const a = await h.newAccount(); // through the admin API: the key has not been used yet
  // A second app on the same deps: what it learns lands in the deps' own instances.
  const second = createApp(h.deps);
  const id = (await request(second).post('/api/video/generate').set(a.auth).send(video)).body.taskId;
  expect((await request(second).get(`/api/video/tasks/${id}`).set(a.auth)).body.status).toBe('pending');
  expect(h.deps.apiKeys.known(asRequest(a.auth))?.accountId).toBe(a.id);
  expect(h.deps.pollCache.localCopy(id)?.accountId).toBe(a.id);
  // The other deps (another gateway in this process) has learnt nothing from those requests.
  expect(other.apiKeys.known(asRequest(a.auth))).toBeUndefined();
  expect(other.pollCache.localCopy(id)).toBeUndefined();
});

