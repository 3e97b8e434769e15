// optimize_prompt as a new user meets it, through the real processes with the development defaults
// (no PROVIDER_CONFIG, no PROMPT_OPTIMIZER: the simulator renders and rewrites): a video-a-h3 task
// with two pictures and optimize_prompt true completes, and the structured prompt that was sent shows
// in the listing, the webhook event, the admin task and the console's task page. A failing
// optimizer still completes the task with the prompt as written, charged once.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseStructuredPrompt } from '@mediagen/prompt-optimizer';
import { Account, apiClient } from './support/api';
import type { Stack } from './support/stack';
import { e2eSuite } from './support/suite';
import { Receiver, startReceiver } from './support/webhook-receiver';
import { eventually } from './support/wait';

jest.setTimeout(90_000);

const PNG = `data:image/png;base64,${fs.readFileSync(path.resolve(__dirname, '../../packages/media/test/fixtures/image.png')).toString('base64')}`;
const OPERATOR = { name: 'opal', password: 'optimizer operator password' };

let stack: Stack;
let api: ReturnType<typeof apiClient>;
let account: Account;
let receiver: Receiver;

e2eSuite('prompt-optimizer', {}, (s) => ({ stack, api, account } = s));
beforeAll(async () => {
  receiver = await startReceiver();
  expect((await api.admin('POST', `/accounts/${account.accountId}/webhooks`, { url: receiver.url('/hook') })).status).toBe(201);
});
afterAll(() => receiver?.close());

async function run(body: Record<string, unknown>): Promise<string> {
  const res = await api.submit(account, 'video', { model: 'video-a-h3', resolution: '480p', duration: 4, ratio: '16:9', optimize_prompt: true, ...body });
  expect(res.status).toBe(200);
  const taskId = String(res.body.taskId);
  expect((await api.untilSettled(account, 'video', taskId, 40_000)).at(-1)).toMatchObject({ status: 'completed' });
  return taskId;
}

const listed = async (taskId: string) => {
  const res = await fetch(`${stack.gatewayUrl}/api/tasks?limit=20`, { headers: { Authorization: `Bearer ${account.apiKey}` } });
  return ((await res.json()) as { data: Array<Record<string, unknown>> }).data.find((t) => t.taskId === taskId);
};

async function consolePage(taskId: string): Promise<string> {
  const made = await fetch(`${stack.gatewayUrl}/admin/operators`, {
    method: 'POST', headers: { Authorization: `Bearer ${stack.adminToken}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ ...OPERATOR, role: 'viewer' }),
  });
  expect([200, 201]).toContain(made.status);
  const form = await fetch(`${stack.gatewayUrl}/console/login`);
  const csrfCookie = form.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1];
  const login = await fetch(`${stack.gatewayUrl}/console/login`, {
    method: 'POST', redirect: 'manual', headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: csrfCookie },
    body: new URLSearchParams({ _csrf: csrf, next: `/console/tasks/${taskId}`, ...OPERATOR }).toString(),
  });
  expect(login.status).toBe(303);
  const session = login.headers.getSetCookie().map((c) => c.split(';')[0]).filter((c) => !c.endsWith('=')).join('; ');
  const page = await fetch(`${stack.gatewayUrl}/console/tasks/${taskId}`, { headers: { Cookie: session } });
  expect(page.status).toBe(200);
  return page.text();
}

it('two pictures: the structured prompt that was sent shows in the listing, the webhook event, the admin task and the console', async () => {
  const prompt = `the fox <Picture 1> trots through the birch forest <Picture 2> at dawn (${Date.now()})`;
  const taskId = await run({ prompt, media: [{ type: 'image', url: PNG }, { type: 'image', url: PNG }] });
  const item = await listed(taskId);
  const sent = String(item?.effectivePrompt);
  const structured = parseStructuredPrompt(sent);
  expect(structured?.subjects.map((s) => s.label)).toEqual(['<Picture 1>', '<Picture 2>']);
  expect(structured?.shots.at(-1)?.end).toBe(4);
  expect(sent).toContain(prompt);

  const admin = await api.admin('GET', `/tasks/${taskId}`);
  expect(admin.body).toMatchObject({ effectivePrompt: sent, promptOptimized: true, promptFallbackReason: null });

  const call = await eventually('the task event delivered', async () => receiver.calls.find((c) => c.status < 300 && JSON.parse(c.body).data.taskId === taskId), 30_000);
  const event = JSON.parse(call.body) as { data: Record<string, unknown> };
  expect(event.data).toMatchObject({ status: 'completed', taskId, model: 'video-a-h3', effectivePrompt: sent });

  const html = await consolePage(taskId);
  expect(html).toContain('Rewritten by the prompt optimizer');
  expect(html).toContain('&lt;Picture 1&gt;');
  // No extra charge: one charge, no other ledger entry for the task.
  expect((await stack.db.ledgerEntry.findMany({ where: { taskId } })).map((e) => e.kind)).toEqual(['charge']);
});

it('a failing optimizer: the task completes with the prompt as written, and operators see why', async () => {
  const prompt = `a heron <Picture 1> takes off #sim:optimizer=fail (${Date.now()})`;
  const taskId = await run({ prompt, media: [{ type: 'image', url: PNG }] });
  expect((await listed(taskId))?.effectivePrompt).toBe(prompt);
  const admin = await api.admin('GET', `/tasks/${taskId}`);
  expect(admin.body).toMatchObject({ effectivePrompt: prompt, promptOptimized: false, promptFallbackReason: expect.stringMatching(/^error: HTTP 500/) });
  expect((await stack.db.ledgerEntry.findMany({ where: { taskId } })).map((e) => e.kind)).toEqual(['charge']);
});

it('the CLI: --optimize-prompt, and the prompt that was sent as effectivePrompt in --json', async () => {
  const bin = path.join(__dirname, '..', '..', 'node_modules', '.bin', 'mediagen');
  const prompt = `a red fox runs through fresh snow (${Date.now()})`;
  const out = await new Promise<{ code: number; stdout: string }>((resolve) =>
    execFile(bin, ['video', prompt, '--optimize-prompt', '--duration', '3', '--resolution', '480p', '--wait', '--json'],
      { env: { ...process.env, MEDIAGEN_API_KEY: account.apiKey, MEDIAGEN_BASE_URL: stack.gatewayUrl } },
      (err, stdout) => resolve({ code: err ? Number((err as { code?: number }).code) : 0, stdout })),
  );
  expect(out.code).toBe(0);
  const task = JSON.parse(out.stdout);
  expect(task).toMatchObject({ status: 'completed', effectivePrompt: expect.stringContaining(prompt) });
  expect(parseStructuredPrompt(task.effectivePrompt)?.shots.at(-1)?.end).toBe(3);
});

it('GET /api/tasks/{taskId} is the task of its own account only', async () => {
  const taskId = await run({ prompt: `a quiet lake (${Date.now()})` });
  const mine = await fetch(`${stack.gatewayUrl}/api/tasks/${taskId}`, { headers: { Authorization: `Bearer ${account.apiKey}` } });
  expect(mine.status).toBe(200);
  expect(await mine.json()).toMatchObject({ taskId, status: 'completed', model: 'video-a-h3', effectivePrompt: expect.stringMatching(/^Subjects:/) });
  const other = await api.newAccount();
  const theirs = await fetch(`${stack.gatewayUrl}/api/tasks/${taskId}`, { headers: { Authorization: `Bearer ${other.apiKey}` } });
  expect(theirs.status).toBe(404);
  expect(await theirs.json()).toMatchObject({ code: 'not_found' });
});
