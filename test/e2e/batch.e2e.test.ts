// Batches against the running stack: mg.batch with more concurrency than the account's in-progress
// limit completes every item (429s waited out), charging each once; the same batch run again
// creates and charges nothing (keys derived from the items); `mediagen batch prompts.jsonl --out`
// writes each result file and results.jsonl and exits by outcome; a bad line is refused before
// anything is submitted.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MediaGen } from '@mediagen/client';
import type { Account, apiClient } from './support/api';
import type { Stack } from './support/stack';
import { e2eSuite } from './support/suite';

jest.setTimeout(120_000);

let stack: Stack;
let api: ReturnType<typeof apiClient>;
let account: Account;
e2eSuite('batch', { maxConcurrentTasks: 2 }, (s) => ({ stack, api, account } = s));

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mediagen-batch-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const charges = async (accountId: string) => {
  const { body } = await api.admin('GET', `/accounts/${accountId}/ledger?limit=100`);
  return (body.entries as { kind: string }[]).filter((e) => e.kind === 'charge').length;
};

test('a batch above the in-progress limit completes every item once; running it again charges nothing', async () => {
  const mg = new MediaGen({ apiKey: account.apiKey, baseUrl: stack.gatewayUrl });
  const items = Array.from({ length: 6 }, (_, i) => ({ model: 'video-a-h3' as const, prompt: `fox ${i} #sim:delay=400`, duration: 2, resolution: '480p' as const }));
  const before = (await mg.balance()).balanceCents;
  const seen: number[] = [];
  const out = await mg.batch(items, { concurrency: 5, onProgress: (p) => seen.push(p.inFlight) });
  expect(out.map((o) => o.status)).toEqual(Array(6).fill('completed'));
  expect(new Set(out.map((o) => o.taskId)).size).toBe(6);
  expect(Math.max(...seen)).toBeLessThanOrEqual(2);
  const cost = out[0].task && (await mg.videos.quote(items[0])).costCents;
  expect((await mg.balance()).balanceCents).toBe(before - 6 * cost!);
  expect(await charges(account.accountId)).toBe(6);
  const again = await mg.batch(items, { concurrency: 5 });
  expect(again.map((o) => o.taskId)).toEqual(out.map((o) => o.taskId));
  expect(await charges(account.accountId)).toBe(6);
  expect((await mg.balance()).balanceCents).toBe(before - 6 * cost!);
});

function mediagen(args: string[], key: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const bin = path.join(__dirname, '..', '..', 'node_modules', '.bin', 'mediagen');
  return new Promise((resolve) =>
    execFile(bin, args, { cwd: dir, env: { ...process.env, MEDIAGEN_API_KEY: key, MEDIAGEN_BASE_URL: stack.gatewayUrl } }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code) : 0, stdout, stderr }),
    ),
  );
}

test('mediagen batch prompts.jsonl --out results/: files, results.jsonl, summary and exit code', async () => {
  const other = await api.newAccount(10_000, 2);
  const lines = [
    JSON.stringify({ model: 'image-b-2.5', prompt: 'a red fox', ratio: '16:9' }),
    '',
    JSON.stringify({ model: 'image-b-2.5', prompt: 'a heron' }),
    JSON.stringify({ model: 'video-a-h3', prompt: 'a storm #sim:fail', duration: 2, resolution: '480p' }),
    JSON.stringify({ model: 'image-b-2.5', prompt: 'x', ratio: '5:4' }),
  ];
  fs.writeFileSync(path.join(dir, 'prompts.jsonl'), lines.join('\n') + '\n');
  const r = await mediagen(['batch', 'prompts.jsonl', '--out', 'results', '--json'], other.apiKey);
  expect(r.code).toBe(1); // one failed, one refused
  expect(JSON.parse(r.stdout)).toEqual({ total: 4, completed: 2, failed: 1, refused: 1, saved: 2, out: 'results' });
  const rows = fs.readFileSync(path.join(dir, 'results', 'results.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  expect(rows.map((x) => [x.line, x.status])).toEqual([[1, 'completed'], [3, 'completed'], [4, 'failed'], [5, 'refused']]);
  expect(rows[2]).toMatchObject({ errorCode: 'generation_failed' });
  expect(rows[3]).toMatchObject({ error: { status: 400, code: 'validation_error' } });
  for (const row of rows.slice(0, 2)) expect(fs.readFileSync(path.join(dir, 'results', row.file)).subarray(1, 4).toString('latin1')).toBe('PNG');
  // Re-run: nothing new is charged.
  const chargesBefore = await charges(other.accountId);
  const again = await mediagen(['batch', 'prompts.jsonl', '--out', 'results', '--json'], other.apiKey);
  expect(JSON.parse(again.stdout)).toMatchObject({ completed: 2, failed: 1, refused: 1 });
  expect(await charges(other.accountId)).toBe(chargesBefore);
});

test('a line that is not a generate body stops the batch before anything is submitted (exit 2)', async () => {
  const poor = await api.newAccount(10_000, 2);
  fs.writeFileSync(path.join(dir, 'bad.jsonl'), `${JSON.stringify({ model: 'image-b-2.5', prompt: 'ok' })}\n{not json\n`);
  const r = await mediagen(['batch', 'bad.jsonl', '--out', 'bad-results'], poor.apiKey);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/bad\.jsonl:2: not JSON/);
  expect(await charges(poor.accountId)).toBe(0);
});
