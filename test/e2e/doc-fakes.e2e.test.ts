// The service as a new user runs it: a PROVIDER_CONFIG shaped like config/providers.example.json
// (real upstream model names, keys from the environment) pointing every protocol's channel at a fake
// written from the vendors' public documentation (test/e2e/support/doc-fakes, from
// /work/shared/notes/providers.md), not from our adapters or our simulator. Each task goes through
// the public HTTP API; the assertions are what a user sees (a completed task with a real file, the
// failure code) and what the vendor sees (the documented path, auth header and body fields).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Account, apiClient } from './support/api';
import type { Stack } from './support/stack';
import { e2eSuite } from './support/suite';
import { taskChecks } from './support/task-checks';
import { eventually, waitFor } from './support/wait';
import { isMp4, isPng } from './support/doc-fakes/common';
import { CANCELS, CASES, Case, FAL_IMAGE, KEYS, REFERENCES, VARIANTS, byChannel, channels, fakes } from './support/doc-fakes/scenarios';

// Room for the deadlines of the waits below on a loaded machine (they end as soon as their condition holds).
jest.setTimeout(150_000);

let stack: Stack;
let api: ReturnType<typeof apiClient>;
let account: Account;
let dir: string;

e2eSuite(
  'doc_fakes',
  {
    balanceCents: 10_000_000,
    maxConcurrentTasks: 100,
    stack: async () => {
      await Promise.all(Object.values(fakes).map((f) => f.start()));
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-doc-fakes-'));
      fs.writeFileSync(path.join(dir, 'channels.json'), JSON.stringify({ channels: channels() }, null, 2));
      return { env: { PROVIDER_CONFIG: path.join(dir, 'channels.json'), TASK_TIMEOUT_MS: '30000', RATE_LIMIT_PER_MINUTE: '100000', ...KEYS } };
    },
  },
  (s) => ({ stack, api, account } = s),
);
afterAll(async () => {
  if (process.env.DOC_FAKES_DUMP) fs.writeFileSync(process.env.DOC_FAKES_DUMP, JSON.stringify(Object.values(fakes).map((f) => ({ protocol: f.protocol, seen: f.seen.map((s) => ({ ...s, query: String(s.query) })) })), null, 1));
  await Promise.all(Object.values(fakes).map((f) => f.stop()));
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const { attemptsOf, ledgerOf } = taskChecks(() => ({ stack, api, account }));

let n = 0;
const unique = (text: string) => `${text} (${++n} ${Date.now()})`.trim();


// Waits the server names (Retry-After on our own 429s) and the poll interval of a client: the
// protocol's clock, not a guess of how long something takes.
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Submit and poll like a client with many tasks in flight: our own 429s are waited out. */
async function settle(c: Case, prompt: string) {
  let res = await api.submit(account, c.kind, c.body(prompt));
  for (let i = 0; res.status === 429 && i < 20; i++) {
    await sleep(1000 * Number(res.headers.get('retry-after') ?? 1));
    res = await api.submit(account, c.kind, c.body(prompt));
  }
  if (res.status !== 200) throw new Error(`submit: ${res.status} ${JSON.stringify(res.body)}`);
  const taskId = String(res.body.taskId);
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    const r = await api.poll(account, c.kind, taskId);
    if (r.status === 429) await sleep(1000 * Math.max(1, Number(r.headers.get('retry-after') ?? 1)));
    else if (r.status !== 200) throw new Error(`poll ${taskId}: ${r.status} ${JSON.stringify(r.body)}`);
    else if (r.body.status === 'completed' || r.body.status === 'failed') return { taskId, last: r.body };
    else await sleep(300);
  }
  throw new Error(`task ${taskId} not settled\n${stack.logs()}`);
}

/** Every scenario's task runs at once (the suite stays short); each test awaits its own. */
const runs = new Map<string, Promise<Awaited<ReturnType<typeof settle>> & { prompt: string }>>();
function run(key: string, c: Case, words: string) {
  if (!runs.has(key)) {
    const prompt = unique(`${words} a lighthouse in fog, "${c.channel}"`);
    const p = settle(c, prompt).then((r) => ({ ...r, prompt }));
    p.catch(() => undefined);
    runs.set(key, p);
  }
  return runs.get(key)!;
}
const once = (pick: (c: Case) => unknown) => CASES.filter((c, i) => CASES.findIndex((d) => pick(d) === pick(c)) === i);
const INPUT_CASES = once((c) => `${c.fake.protocol}/${c.kind}`);
const RATE_CASES = once((c) => c.fake);

const cancels = new Map<string, ReturnType<typeof cancelRun>>();

/** A slow render, cancelled by the client while the vendor still has it queued. */
async function cancelRun(c: Case, path: RegExp, words = '[fake:slow]', afterFinish = false) {
  const prompt = unique(`${words} a glacier, "${c.channel}"`);
  const res = await api.submit(account, c.kind, c.body(prompt));
  if (res.status !== 200) throw new Error(`submit: ${res.status} ${JSON.stringify(res.body)}`);
  const taskId = String(res.body.taskId);
  // Cancel once the vendor holds the render (still queued there: a slow render queues for 2 s).
  const held = () => [...c.fake.jobs.values()].find((j) => j.prompt.includes(prompt));
  const recorded = async () => held() && (await stack.db.taskAttempt.findFirst({ where: { taskId, upstreamId: { not: null } } }));
  // Conditions with deadlines, not counted sleeps: on a loaded machine each step may take seconds.
  await eventually(`the render of ${prompt} to start upstream`, recorded, 60_000);
  if (afterFinish) await eventually('the render to finish upstream', async () => c.fake.phase(held()!) === 'succeeded', 30_000);
  const answer = (await api.cancel(account, c.kind, taskId)).status;
  let last: Record<string, unknown> = {};
  await eventually(
    'the cancelled task to settle',
    async () => {
      const r = await api.poll(account, c.kind, taskId);
      if (r.status === 200) last = r.body;
      return last.status === 'completed' || last.status === 'failed';
    },
    60_000,
  ).catch(() => undefined); // the assertions say what state it was left in
  const job = held();
  const cancelCalls = () => c.fake.seen.filter((s) => job && s.path.includes(job.id) && path.test(`${s.method} ${s.path}`)).map((s) => `${s.method} ${s.status}`);
  await eventually('the cancel call', async () => cancelCalls().length > 0, 30_000).catch(() => undefined);
  const calls = cancelCalls();
  return { answer, last, calls, taskId };
}

beforeAll(() => {
  for (const c of CASES) run(`ok ${c.name}`, c, '');
  for (const c of CASES) run(`violation ${c.name}`, c, '[fake:violation]');
  for (const c of INPUT_CASES) run(`input ${c.name}`, c, '[fake:input-violation]');
  for (const c of RATE_CASES) run(`429 ${c.name}`, c, '[fake:429]');
  for (const [c, words] of VARIANTS) run(`variant ${c.name} ${words}`, c, words);
  for (const [c, path] of CANCELS) cancels.set(c.name, cancelRun(c, path));
  cancels.set('ark running', cancelRun(byChannel('ark-seedance'), CANCELS[1][1], '[fake:running]'));
  // fal-image polls once a minute: without its webhook the request completes upstream unnoticed.
  cancels.set('fal finished', cancelRun(FAL_IMAGE, /^PUT \/fal-ai\/nano-banana\/requests\/[^/]+\/cancel$/, '[fake:no-hook]', true));
  // One after another: the gateway reads at most 2 submits' reference files per account at once.
  void REFERENCES.reduce<Promise<unknown>>((prev, [c, body]) => prev.then(() => run(`refs ${c.name}`, { ...c, body }, 'with a reference')).catch(() => undefined), Promise.resolve());
});

async function expectFile(last: Record<string, unknown>, kind: 'video' | 'image') {
  const file = await api.fetchFile((last.resultUrls as string[])[0]);
  expect(file.status).toBe(200);
  expect(kind === 'video' ? isMp4(file.bytes) : isPng(file.bytes)).toBe(true);
}

describe('completes with a valid file, the vendor seeing the documented request', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const { taskId, last, prompt } = await run(`ok ${c.name}`, c, '');
    const seen = c.submitOf(prompt);
    expect(seen).toBeDefined();
    c.expectSubmit(seen!, prompt);
    expect(last).toMatchObject({ status: 'completed' });
    await expectFile(last, c.kind);
    expect(await attemptsOf(taskId)).toEqual([[c.channel, 'completed']]);
  });
});

describe('an output refused by moderation', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s: content_violation only where the channel reportsViolations', async (_name, c) => {
    const { taskId, last } = await run(`violation ${c.name}`, c, '[fake:violation]');
    expect(last).toMatchObject({ status: 'failed', errorCode: c.reportsViolations ? 'content_violation' : 'generation_failed' });
    // The first channel's verdict; a plain failure may go on to the model's next channel.
    expect((await attemptsOf(taskId))[0]).toEqual([c.channel, c.reportsViolations ? 'violation' : 'failed']);
  });
});

describe('an input refused by moderation at submit', () => {
  it.each(INPUT_CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const { last } = await run(`input ${c.name}`, c, '[fake:input-violation]');
    expect(last).toMatchObject({ status: 'failed', errorCode: c.reportsViolations ? 'content_violation' : 'generation_failed' });
  });
});

describe('a 429 on submit is retried on the same channel', () => {
  it.each(RATE_CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const { taskId, last, prompt } = await run(`429 ${c.name}`, c, '[fake:429]');
    expect(last).toMatchObject({ status: 'completed' });
    expect(await attemptsOf(taskId)).toEqual([[c.channel, 'completed']]);
    const submits = c.fake.seen.filter((s) => s.method === 'POST' && JSON.stringify(s.body ?? '').includes(JSON.stringify(prompt).slice(1, -1)));
    expect(submits.map((s) => s.status)).toEqual([429, c.fake === fakes.replicate ? 201 : 200]);
    // Where the 429 names a wait (Gemini RetryInfo.retryDelay "1s", Replicate "Expected available in
    // 1 second"), the retry honours it.
    if (c.fake === fakes.gemini || c.fake === fakes.replicate) expect(submits[1].at - submits[0].at).toBeGreaterThanOrEqual(900);
  });
});

describe('documented variants', () => {
  it.each(VARIANTS.map(([c, words, outcome]) => [`${c.name}: ${words}`, c, words, outcome] as const))('%s', async (_name, c, words, outcome) => {
    const { last, taskId, prompt } = await run(`variant ${c.name} ${words}`, c, words);
    expect(last).toMatchObject(outcome);
    if (outcome.status === 'completed') await expectFile(last, c.kind);
    if (words.includes('[fake:gemini-denied]')) {
      expect(await attemptsOf(taskId)).toEqual([['gemini-veo', 'failed'], ['fal-veo', 'completed']]);
      const job = [...fakes.fal.jobs.values()].find((j) => j.prompt.includes(prompt))!;
      expect(fakes.fal.seen.filter((s) => s.path.includes(job.id) || (s.method === 'POST' && JSON.stringify(s.body).includes(job.id))).map((s) => `${s.method} ${s.path.replace(job.id, '{id}')}`)).toContain('GET /fal-ai/veo3.1/requests/{id}/status');
      expect(fakes.fal.calls('POST', /^\/fal-ai\/veo3\.1\/fast$/).length).toBeGreaterThan(0);
    }
  });
});

describe('reference media in the documented fields', () => {
  it.each(REFERENCES.map(([c, body, check]) => [c.name, c, body, check] as const))('%s', async (_name, c, body, check) => {
    const { last, prompt } = await run(`refs ${c.name}`, { ...c, body }, 'with a reference');
    const seen = c.submitOf(prompt);
    expect(seen).toBeDefined();
    check(seen!);
    expect(last).toMatchObject({ status: 'completed' });
    await expectFile(last, c.kind);
  });
});

describe('a client cancel of a queued render', () => {
  it.each(CANCELS.map(([c]) => [c.name, c] as const))('%s: the documented cancel call, the task cancelled', async (_name, c) => {
    const { answer, last, calls } = await cancels.get(c.name)!;
    expect(answer).toBe(200);
    expect(last).toMatchObject({ status: 'failed', errorCode: 'cancelled' });
    expect(calls).toHaveLength(1);
    expect(Number(calls[0].split(' ')[1])).toBeLessThan(300);
  });
});

describe('a client cancel of a render the vendor already runs', () => {
  it.each([
    ['ModelArk refuses (only a queued task can be cancelled)', 'ark running', 'video', 'DELETE 400'],
    ['fal answers ALREADY_COMPLETED (the request finished unnoticed)', 'fal finished', 'image', 'PUT 400'],
  ] as const)('%s: the render is collected, not refunded', async (_name, key, kind, call) => {
    const { answer, last, calls, taskId } = await cancels.get(key)!;
    expect(calls).toEqual([call]);
    expect([202, 409]).toContain(answer);
    let final = last;
    await waitFor(async () => ['completed', 'failed'].includes(String((final = (await api.poll(account, kind, taskId)).body).status)), 15_000, 'the task settled').catch(() => undefined);
    expect(final).toMatchObject({ status: 'completed' });
    await expectFile(final, kind);
    expect(await ledgerOf(taskId)).toEqual(['charge']);
  });
});

describe('callbacks', () => {
  beforeAll(() => Promise.allSettled([...runs.values(), ...cancels.values()]));

  it('ModelArk: every status post to the callback_url is answered 2xx', () => {
    expect(fakes.modelark.callbacks.length).toBeGreaterThan(0);
    expect(fakes.modelark.callbacks.filter((c) => c.answer < 200 || c.answer >= 300)).toEqual([]);
  });

  it('fal: the ED25519-signed webhooks are accepted', () => {
    expect(fakes.fal.webhooks.length).toBeGreaterThan(0);
    expect(fakes.fal.webhooks.filter((w) => w.answer < 200 || w.answer >= 300)).toEqual([]);
  });

  it('Replicate: the signed completed webhook is accepted', () => {
    expect(fakes.replicate.webhooks.length).toBeGreaterThan(0);
    expect(fakes.replicate.webhooks.filter((w) => w.status < 200 || w.status >= 300)).toEqual([]);
  });

  it('MiniMax: a callback_url, when sent, answers the challenge echo', () => {
    expect(fakes.minimax.challenges.filter((c) => !c.echoed)).toEqual([]);
  });
});
