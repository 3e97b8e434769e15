// Cost before and a ceiling through the SDK and the CLI against the running stack: quote answers
// what generate then charges (balance and ledger agree), maxCostCents / --max-cost refuse a dearer
// task with CostAboveLimitError / exit code 5 and nothing charged.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { CostAboveLimitError, MediaGen } from '@mediagen/client';
import type { Account, apiClient } from './support/api';
import type { Stack } from './support/stack';
import { e2eSuite } from './support/suite';

jest.setTimeout(60_000);

let stack: Stack;
let api: ReturnType<typeof apiClient>;
let account: Account;
let mg: MediaGen;
e2eSuite('quote', {}, (s) => {
  ({ stack, api, account } = s);
  mg = new MediaGen({ apiKey: account.apiKey, baseUrl: stack.gatewayUrl });
});

const bin = path.join(__dirname, '..', '..', 'node_modules', '.bin', 'mediagen');
function mediagen(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(bin, args, { env: { ...process.env, MEDIAGEN_API_KEY: account.apiKey, MEDIAGEN_BASE_URL: stack.gatewayUrl } }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code) : 0, stdout, stderr }),
    );
  });
}
const balance = async () => (await mg.balance()).balanceCents;

test('SDK: quote, then generate charges exactly the quoted cost', async () => {
  const params = { model: 'video-b-2.0' as const, prompt: 'a fox', duration: 4 };
  const before = await balance();
  const q = await mg.videos.quote(params);
  expect(q).toEqual({ costCents: 65, billedSeconds: 4, outputSeconds: 4, model: 'video-b-2.0', type: 'video' });
  expect(await balance()).toBe(before);
  const sub = await mg.videos.generate(params, { maxCostCents: q.costCents });
  expect(sub.costCents).toBe(65);
  expect(await balance()).toBe(before - 65);
  const { body } = await api.admin('GET', `/accounts/${account.accountId}/ledger`);
  expect((body.entries as { taskId: string; amountCents: number }[]).find((e) => e.taskId === sub.taskId)).toMatchObject({ amountCents: -65 });
});

test('SDK: maxCostCents below the cost is a CostAboveLimitError with costCents, and nothing is charged', async () => {
  const before = await balance();
  const err = await mg.images.generate({ model: 'image-a-5.0', prompt: 'a fox' }, { maxCostCents: 5 }).catch((e) => e);
  expect(err).toBeInstanceOf(CostAboveLimitError);
  expect(err).toMatchObject({ status: 422, code: 'cost_above_limit', costCents: 20, maxCostCents: 5 });
  expect(typeof err.requestId).toBe('string');
  expect(await balance()).toBe(before);
  const q = await mg.images.quote({ model: 'image-a-5.0', prompt: 'a fox' }, { maxCostCents: 5 }).catch((e) => e);
  expect(q).toBeInstanceOf(CostAboveLimitError);
});

test('CLI: mediagen quote prints the cost (text and --json); --max-cost refuses with exit 5', async () => {
  const before = await balance();
  const json = await mediagen(['quote', 'video', 'a fox', '--model', 'video-a-h3', '--duration', '5', '--resolution', '480p', '--json']);
  expect(json.code).toBe(0);
  expect(JSON.parse(json.stdout)).toEqual({ costCents: 4, billedSeconds: 5, outputSeconds: 5, model: 'video-a-h3', type: 'video' });
  const text = await mediagen(['quote', 'image', 'a fox', '--model', 'image-b-2.5']);
  expect(text.stdout).toMatch(/image-b-2.5 {2}3 cents \(0.03 USD\)/);
  const refused = await mediagen(['image', 'a fox', '--model', 'image-a-5.0', '--max-cost', '19', '--json']);
  expect(refused.code).toBe(5);
  expect(JSON.parse(refused.stdout)).toMatchObject({ error: { status: 422, code: 'cost_above_limit', costCents: 20 }, exitCode: 5 });
  expect(await balance()).toBe(before);
  const usage = await mediagen(['image', 'a fox', '--max-cost', '-3']);
  expect(usage.code).toBe(2);
  const ok = await mediagen(['image', 'a fox', '--model', 'image-b-2.5', '--max-cost', '3', '--json']);
  expect(ok.code).toBe(0);
  expect(JSON.parse(ok.stdout)).toMatchObject({ status: 'completed', costCents: 3 });
  expect(await balance()).toBe(before - 3);
});
