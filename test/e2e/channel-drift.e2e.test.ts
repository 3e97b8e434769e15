// Drift, as a new operator meets it: copy config/providers.example.json, point it at the simulator,
// and `npm run channels:check` shows every channel ok. Then map one model to an upstream id that is
// retired: the check names it (exit code 1), the worker's start-up check logs it, a task for that
// model completes on the next channel (no refund), and GET /admin/channels and the console's
// channel page show the retired mapping; the console's check button runs the check again.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { channelsFor, parseChannelConfig } from '@mediagen/providers';
import { Account, apiClient } from './support/api';
import { freePort, startProcess, stopProcess, waitForHealthy } from './support/processes';
import type { Stack } from './support/stack';
import { e2eSuite } from './support/suite';
import { eventually } from './support/wait';

jest.setTimeout(120_000);

const ROOT = path.resolve(__dirname, '../..');
// The example config names Replicate's webhook secret (required in production); the simulator signs with the same one.
const REPLICATE_SECRET = `whsec_${Buffer.from('drift-test-replicate-secret').toString('base64')}`;
const KEYS = {
  MINIMAX_API_KEY: 'sim-minimax', FAL_KEY: 'sim-fal', REPLICATE_API_TOKEN: 'sim-replicate', ARK_API_KEY: 'sim-ark', GEMINI_API_KEY: 'sim-gemini',
  REPLICATE_WEBHOOK_SECRET: REPLICATE_SECRET, SIM_REPLICATE_WEBHOOK_SECRET: REPLICATE_SECRET,
};
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-drift-'));

/** The example config with each channel's base URL on the simulator (the only edit a trial needs). */
function exampleOnSim(sim: string): { channels: Record<string, unknown>[] } {
  const example = JSON.parse(fs.readFileSync(path.join(ROOT, 'config/providers.example.json'), 'utf8')) as { channels: Record<string, unknown>[] };
  const mount: Record<string, string> = { modelark: '/modelark/api/v3', minimax: '/minimax', gemini: '/gemini/v1beta', fal: '/fal', replicate: '/replicate/v1' };
  for (const c of example.channels) {
    c.baseUrl = `${sim}${mount[String(c.protocol)]}`;
    if (c.protocol === 'fal') Object.assign(c, { platformUrl: `${sim}/fal/platform/v1`, webhookJwksUrl: `${sim}/fal/.well-known/jwks.json` });
  }
  return example;
}

// The model whose first channel gets a retired id: video-b-2.0 at the third-party tier (two
// channels serve it in the example config).
const MODEL = 'video-b-2.0';
const BODY = { model: MODEL, tier: 'third-party' };
let retired: { channel: string; upstreamModel: string; next: string };

function runCheck(configFile: string, extraEnv: Record<string, string>, args: string[] = []): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/channels-check.ts'), ...args], {
      cwd: ROOT, env: { ...process.env, ...KEYS, ...extraEnv, PROVIDER_CONFIG: configFile, ALLOW_PRIVATE_MEDIA_URLS: 'true', CHANNEL_CHECK_TIMEOUT_MS: '5000' },
    }, (err, stdout) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout }));
  });
}

let stack: Stack;
let api: ReturnType<typeof apiClient>;
let account: Account;
let simPort: number;

e2eSuite(
  'drift',
  {
    stack: async () => {
      simPort = await freePort();
      const config = exampleOnSim(`http://127.0.0.1:${simPort}`);
      fs.writeFileSync(path.join(dir, 'example.json'), JSON.stringify(config, null, 2));
      const parsed = parseChannelConfig(config, KEYS);
      const [first, second] = channelsFor(parsed, MODEL, 'third-party');
      const channel = config.channels.find((c) => c.id === first.id)!;
      const models = channel.models as Record<string, string>;
      retired = { channel: first.id, upstreamModel: `${models[MODEL]}-retired`, next: second.id };
      models[MODEL] = retired.upstreamModel;
      fs.writeFileSync(path.join(dir, 'retired.json'), JSON.stringify(config, null, 2));
      return {
        env: {
          ...KEYS, PROVIDER_CONFIG: path.join(dir, 'retired.json'), SIM_PORT: String(simPort), SIM_RENDER_MS: '200',
          SIM_RETIRED_MODELS: retired.upstreamModel, CHANNEL_CHECK_AT_START: '1',
        },
      };
    },
  },
  (s) => ({ stack, api, account } = s),
);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

it('the example config pointed at the simulator passes channels:check: every channel ok', async () => {
  // A simulator of its own, serving the example config as it is.
  const port = await freePort();
  const env = { ...stack.env, PROVIDER_CONFIG: path.join(dir, 'example.json'), SIM_PORT: String(port), SIM_RETIRED_MODELS: '' };
  const sim = startProcess('sim-example', 'apps/provider-sim/src/main.ts', env, dir);
  try {
    await waitForHealthy(`http://127.0.0.1:${port}/healthz`, sim);
    const onPort = exampleOnSim(`http://127.0.0.1:${port}`);
    fs.writeFileSync(path.join(dir, 'example-own.json'), JSON.stringify(onPort));
    const { code, stdout } = await runCheck(path.join(dir, 'example-own.json'), { REDIS_PREFIX: `${stack.prefix}-own` });
    expect(stdout).toMatch(/^all \d+ checks ok$/m);
    expect(code).toBe(0);
    // One line per channel and upstream model, each with its time.
    for (const c of onPort.channels) expect(stdout).toMatch(new RegExp(`^${c.id}\\s+\\S+\\s+ok\\s+\\d+ ms`, 'm'));
  } finally {
    await stopProcess(sim);
  }
});

it('a model mapped to a retired id: the check names it, and exits 1', async () => {
  const { code, stdout } = await runCheck(path.join(dir, 'retired.json'), { REDIS_URL: stack.env.REDIS_URL, REDIS_PREFIX: stack.prefix });
  expect(code).toBe(1);
  expect(stdout).toMatch(new RegExp(`^${retired.channel}\\s+${retired.upstreamModel.replace(/[./]/g, '\\$&')}\\s+unknown model\\s+\\d+ ms\\s+${MODEL}: `, 'm'));
  expect(stdout).toMatch(/^1 of \d+ checks need attention/m);
  const json = await runCheck(path.join(dir, 'retired.json'), { REDIS_PREFIX: `${stack.prefix}-json` }, ['--json']);
  const body = JSON.parse(json.stdout) as { ok: boolean; results: { channel: string; upstreamModel: string; verdict: string }[] };
  expect(body.ok).toBe(false);
  expect(body.results.filter((r) => r.verdict !== 'ok')).toEqual([expect.objectContaining({ channel: retired.channel, upstreamModel: retired.upstreamModel, verdict: 'unknown_model' })]);
});

it('the worker checks its channels at start and logs the retired model', async () => {
  await eventually('the start-up check line', async () => fs.readFileSync(stack.workers[0].logFile, 'utf8').includes(`channel check: ${retired.channel} ${retired.upstreamModel} unknown model`));
});

it('tasks for that model complete on the next channel, are not refunded, and the channel shows the retired mapping', async () => {
  const before = Number((await api.admin('GET', `/accounts/${account.accountId}`)).body.balanceCents);
  const submit = await api.submit(account, 'video', { ...BODY, prompt: 'a glacier calving into the sea' });
  expect(submit.status).toBe(200);
  const taskId = String(submit.body.taskId);
  expect((await api.untilSettled(account, 'video', taskId, 60_000)).at(-1)).toMatchObject({ status: 'completed' });
  const task = await api.admin('GET', `/tasks/${taskId}`);
  const attempts = (task.body.attempts as { channelId: string; status: string; errorKind: string | null }[]).map((a) => [a.channelId, a.status, a.errorKind]);
  expect(attempts).toEqual([[retired.channel, 'failed', 'unknown_model'], [retired.next, 'completed', null]]);
  expect(await stack.db.ledgerEntry.count({ where: { taskId, kind: 'refund' } })).toBe(0);
  // Charged once for the render that was delivered; nothing given back.
  const charge = await stack.db.ledgerEntry.findFirstOrThrow({ where: { taskId, kind: 'charge' } });
  expect(Number((await api.admin('GET', `/accounts/${account.accountId}`)).body.balanceCents)).toBe(before + Number(charge.amountCents));

  const channels = (await api.admin('GET', '/channels')).body.channels as Record<string, unknown>[];
  const view = channels.find((c) => c.id === retired.channel)!;
  expect(view.unavailableModels).toEqual([expect.objectContaining({ upstreamModel: retired.upstreamModel, model: MODEL })]);
  expect(view.lastError).toMatchObject({ kind: 'unknown_model', message: expect.stringContaining(retired.upstreamModel) });
  expect((view.coverage as Record<string, { renders: string }>)[MODEL]).toBeDefined();

  // A second task is not sent to the retired mapping at all.
  const again = await api.submit(account, 'video', { ...BODY, prompt: 'a glacier at night' });
  const againId = String(again.body.taskId);
  expect((await api.untilSettled(account, 'video', againId, 60_000)).at(-1)).toMatchObject({ status: 'completed' });
  const againAttempts = (await api.admin('GET', `/tasks/${againId}`)).body.attempts as { channelId: string }[];
  expect(againAttempts.map((a) => a.channelId)).toEqual([retired.next]);
});

/** A console session over plain HTTP: the login form's CSRF cookie, then the session cookie. */
async function consoleSession(): Promise<{ get(p: string): Promise<string>; post(p: string, form: Record<string, string>): Promise<Response> }> {
  const op = { name: 'drift-admin', password: 'drift admin password 123', role: 'admin' };
  const created = await fetch(`${stack.gatewayUrl}/admin/operators`, { method: 'POST', headers: { Authorization: `Bearer ${stack.adminToken}`, 'Content-Type': 'application/json' }, body: JSON.stringify(op) });
  expect(created.status).toBe(201);
  const cookies = new Map<string, string>();
  const keep = (res: Response) => {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const [k, v] = pair.split('=');
      cookies.set(k, v);
    }
  };
  const cookie = () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const login = await fetch(`${stack.gatewayUrl}/console/login`);
  keep(login);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await login.text())![1];
  const signIn = await fetch(`${stack.gatewayUrl}/console/login`, {
    method: 'POST', redirect: 'manual', headers: { Cookie: cookie(), 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ name: op.name, password: op.password, _csrf: csrf }).toString(),
  });
  expect(signIn.status).toBe(303);
  keep(signIn);
  return {
    get: async (p) => (await fetch(`${stack.gatewayUrl}${p}`, { headers: { Cookie: cookie() } })).text(),
    post: (p, form) =>
      fetch(`${stack.gatewayUrl}${p}`, { method: 'POST', redirect: 'manual', headers: { Cookie: cookie(), 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() }),
  };
}

it("the console's channel page shows coverage and the retired mapping; an admin's check button runs the check", async () => {
  const session = await consoleSession();
  const page = await session.get('/console/channels');
  expect(page).toContain(`upstream model <code>${retired.upstreamModel}</code> unknown or retired`);
  expect(page).toContain('everything sold');
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page)![1];
  const res = await session.post(`/console/channels/${retired.channel}/check`, { _csrf: csrf });
  expect(res.status).toBe(303);
  const after = await session.get('/console/channels');
  expect(after).toMatch(new RegExp(`<code>${retired.upstreamModel.replace(/[./]/g, '\\$&')}</code> unknown model \\(\\d+ ms`));
  // Still unknown upstream, so still marked: a check clears only a model it finds.
  expect(after).toContain(`upstream model <code>${retired.upstreamModel}</code> unknown or retired`);
});
