// The `mediagen` CLI as a user runs it (the workspace bin, MEDIAGEN_API_KEY / MEDIAGEN_BASE_URL from
// the environment) against the running stack: `image ... -o fox.png` writes a real PNG at the
// requested ratio; `task`, `balance` answer JSON with --json; exit codes follow the outcome.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Account, apiClient } from './support/api';
import type { Stack } from './support/stack';
import { e2eSuite } from './support/suite';

jest.setTimeout(60_000);

let stack: Stack;
let api: ReturnType<typeof apiClient>;
let account: Account;
e2eSuite('cli', {}, (s) => ({ stack, api, account } = s));

const root = path.join(__dirname, '..', '..');
const bin = path.join(root, 'node_modules', '.bin', 'mediagen');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mediagen-cli-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function mediagen(args: string[], key = account.apiKey): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(bin, args, { cwd: dir, env: { ...process.env, MEDIAGEN_API_KEY: key, MEDIAGEN_BASE_URL: stack.gatewayUrl } }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code) : 0, stdout, stderr }),
    );
  });
}

/** Width and height from a PNG's IHDR chunk, after checking the signature. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  expect(bytes.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

test('mediagen image -o fox.png writes a real 16:9 PNG and exits 0', async () => {
  const r = await mediagen(['image', 'A red fox in fresh snow', '--model', 'image-b-2.5', '--ratio', '16:9', '-o', 'fox.png']);
  expect(r).toMatchObject({ code: 0 });
  expect(r.stdout).toMatch(/completed/);
  const { width, height } = pngSize(fs.readFileSync(path.join(dir, 'fox.png')));
  expect(Math.abs(width / height - 16 / 9)).toBeLessThan(0.02);
});

test('--json output of image, task and balance; task finds the kind by itself', async () => {
  const img = await mediagen(['image', 'a blue heron', '--ratio', '1:1', '--json']);
  expect(img.code).toBe(0);
  const out = JSON.parse(img.stdout);
  expect(out).toMatchObject({ taskId: expect.any(String), status: 'completed', resultUrls: [expect.any(String)] });
  const task = await mediagen(['task', out.taskId, '--json']);
  expect(JSON.parse(task.stdout)).toMatchObject({ taskId: out.taskId, status: 'completed', type: 'image' });
  const bal = await mediagen(['balance', '--json']);
  const { balanceCents } = (await api.admin('GET', `/accounts/${account.accountId}`)).body;
  expect(JSON.parse(bal.stdout)).toEqual({ balanceCents, topUpUrl: expect.any(String) });
});

test('exit codes: 1 failed task, 3 bad key, 4 insufficient balance, 2 usage', async () => {
  const failed = await mediagen(['video', 'a storm #sim:fail', '--duration', '2', '--resolution', '480p', '--wait', '--json']);
  expect(failed.code).toBe(1);
  expect(JSON.parse(failed.stdout)).toMatchObject({ status: 'failed', errorCode: 'generation_failed' });
  expect((await mediagen(['balance'], 'mg_' + 'x'.repeat(40))).code).toBe(3);
  const poor = await api.newAccount(1);
  const refused = await mediagen(['video', 'a fox', '--duration', '10', '--json'], poor.apiKey);
  expect(refused.code).toBe(4);
  expect(JSON.parse(refused.stdout).error).toMatchObject({ status: 402, code: 'insufficient_balance', costCents: expect.any(Number), balanceCents: 1 });
  expect((await mediagen(['video'])).code).toBe(2);
  expect((await mediagen(['image', 'x', '--bogus'])).code).toBe(2);
});

test('video without --wait prints the task id; --timeout stops waiting with exit 7', async () => {
  const started = await mediagen(['video', 'a slow fox #sim:hang', '--duration', '2', '--resolution', '480p', '--json']);
  expect(started.code).toBe(0);
  const { taskId } = JSON.parse(started.stdout);
  const waited = await mediagen(['task', taskId, '--wait', '--timeout', '1']);
  expect(waited.code).toBe(7);
  expect(waited.stderr).toContain(`mediagen task ${taskId} --wait`);
});
