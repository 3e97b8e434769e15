// The SDK as a customer gets it: `npm pack -w @mediagen/client` (prepack builds dist/), the tarball
// installed into an empty project outside this repository, then run there on plain Node (the
// machine's Node 20 when it has one, the oldest line the package supports) against the stack:
// require() and import both work, `mediagen` runs from node_modules/.bin, and the bundled
// declarations type-check a consumer under NodeNext resolution.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { VERSION } from '@mediagen/client';
import type { Account } from './support/api';
import type { Stack } from './support/stack';
import { e2eSuite } from './support/suite';

jest.setTimeout(180_000);

let stack: Stack;
let account: Account;
e2eSuite('sdk-pack', {}, (s) => ({ stack, account } = s));

const ROOT = path.join(__dirname, '..', '..');
const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'packages/client/package.json'), 'utf8')) as { version: string };
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'mediagen-pack-'));
const project = path.join(work, 'app');
const tarball = path.join(work, `mediagen-client-${manifest.version}.tgz`);
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** The consumer's Node: the machine's own (/usr/bin/node, 20 on these machines) when it is 20+, else ours. */
function consumerNode(): string {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
    try {
      const major = Number(/^v(\d+)/.exec(require('node:child_process').execFileSync(candidate, ['-v'], { encoding: 'utf8' }))?.[1]);
      if (major >= 20) return candidate;
    } catch {
      /* not there */
    }
  }
  return process.execPath;
}
const node = consumerNode();

function run(cmd: string, args: string[], opts: { cwd: string; env?: Record<string, string> }): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, maxBuffer: 10 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const npm = (args: string[], cwd: string) => run(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, { cwd });

beforeAll(async () => {
  const packed = await npm(['pack', '-w', '@mediagen/client', '--pack-destination', work, '--json'], ROOT);
  if (packed.code !== 0) throw new Error(`npm pack failed: ${packed.stderr}`);
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '0.0.0', private: true }));
  // From npm's cache when it holds cli-progress (it does after `npm ci`), so no network is needed.
  const installed = await npm(['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], project);
  if (installed.code !== 0) throw new Error(`npm install of the tarball failed: ${installed.stderr}`);
}, 180_000);

const env = () => ({ MEDIAGEN_API_KEY: account.apiKey, MEDIAGEN_BASE_URL: stack.gatewayUrl });

test('the tarball carries the build, no sources, and depends on nothing from this repository', () => {
  const pkgDir = path.join(project, 'node_modules/@mediagen/client');
  const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
  expect(fs.existsSync(tarball)).toBe(true);
  expect(pkg.version).toBe(VERSION); // the User-Agent's version follows the manifest
  expect(fs.existsSync(path.join(pkgDir, 'src'))).toBe(false);
  for (const f of ['dist/index.js', 'dist/index.mjs', 'dist/index.d.ts', 'dist/index.d.mts', 'dist/cli/main.js', 'bin/mediagen.js', 'CHANGELOG.md', 'README.md'])
    expect([f, fs.existsSync(path.join(pkgDir, f))]).toEqual([f, true]);
  expect(Object.keys(pkg.dependencies ?? {})).toEqual(['cli-progress']);
  // Next to it only registry packages: no link or file into this repository, no other @mediagen package.
  const lock = JSON.parse(fs.readFileSync(path.join(project, 'package-lock.json'), 'utf8')) as { packages: Record<string, { resolved?: string; link?: boolean }> };
  const foreign = Object.entries(lock.packages)
    .filter(([loc]) => loc && loc !== 'node_modules/@mediagen/client')
    .filter(([loc, e]) => e.link || loc.includes('@mediagen/') || e.resolved?.startsWith('file:'))
    .map(([loc]) => loc);
  expect(foreign).toEqual([]);
  expect(Object.keys(lock.packages)).toContain('node_modules/cli-progress');
});

test('require() (CommonJS) on plain Node: an image is generated and waited for, with progress', async () => {
  fs.writeFileSync(
    path.join(project, 'first-image.cjs'),
    `const { MediaGen, VERSION } = require('@mediagen/client');
const mg = new MediaGen();
(async () => {
  const task = await mg.images.generate({ model: 'image-b-2.5', prompt: 'A red fox in fresh snow', ratio: '16:9' });
  const seen = [];
  const done = await mg.tasks.wait(task.taskId, { onProgress: (t) => seen.push(t.status) });
  console.log(JSON.stringify({ version: VERSION, node: process.version, taskId: task.taskId, status: done.status, resultUrls: done.resultUrls, seen }));
})().catch((e) => { console.error(e); process.exit(1); });
`,
  );
  const r = await run(node, ['first-image.cjs'], { cwd: project, env: env() });
  expect(r.stderr).toBe('');
  const out = JSON.parse(r.stdout);
  expect(out).toMatchObject({ version: VERSION, status: 'completed', resultUrls: [expect.stringMatching(/^http/)] });
  expect(out.seen.at(-1)).toBe('completed');
  if (node !== process.execPath) expect(out.node).toMatch(/^v20\./);
  const file = await fetch(out.resultUrls[0]);
  expect(file.status).toBe(200);
  expect(Buffer.from(await file.arrayBuffer()).subarray(1, 4).toString('latin1')).toBe('PNG');
});

test('import (ES module) on plain Node: typed errors work across the package boundary', async () => {
  fs.writeFileSync(
    path.join(project, 'errors.mjs'),
    `import MediaGenDefault, { MediaGen, BadRequestError, AuthenticationError } from '@mediagen/client';
const mg = new MediaGen();
const bad = await mg.images.generate({ model: 'image-b-2.5', prompt: '' }).catch((e) => e);
const unauth = await new MediaGenDefault({ apiKey: 'mg_' + 'x'.repeat(40) }).balance().catch((e) => e);
const balance = await mg.balance();
console.log(JSON.stringify({ bad: [bad instanceof BadRequestError, bad.status, bad.code, typeof bad.requestId], unauth: [unauth instanceof AuthenticationError, unauth.status], balance }));
`,
  );
  const r = await run(node, ['errors.mjs'], { cwd: project, env: env() });
  expect(r.stderr).toBe('');
  expect(JSON.parse(r.stdout)).toEqual({
    bad: [true, 400, 'validation_error', 'string'],
    unauth: [true, 401],
    balance: { balanceCents: expect.any(Number), topUpUrl: expect.any(String) },
  });
});

test('the mediagen command runs from the installed package (npx mediagen)', async () => {
  // npx finds the package's bin in node_modules/.bin; the consumer's Node comes first on PATH.
  const PATH = `${path.dirname(node)}${path.delimiter}${process.env.PATH}`;
  const r = await run('npx', ['--no-install', 'mediagen', 'image', 'a blue heron', '--ratio', '1:1', '-o', 'heron.png', '--json'], { cwd: project, env: { ...env(), PATH } });
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout)).toMatchObject({ status: 'completed', file: 'heron.png' });
  expect(fs.readFileSync(path.join(project, 'heron.png')).subarray(1, 4).toString('latin1')).toBe('PNG');
  const balance = await run(node, [path.join(project, 'node_modules/.bin/mediagen'), 'balance', '--json'], { cwd: project, env: env() });
  expect(JSON.parse(balance.stdout)).toEqual({ balanceCents: expect.any(Number), topUpUrl: expect.any(String) });
});

test('the bundled declarations type-check a consumer (NodeNext, ESM and CommonJS)', async () => {
  fs.writeFileSync(
    path.join(project, 'typed.mts'),
    `import { MediaGen, type Task, type VideoGenerateParams, InsufficientBalanceError } from '@mediagen/client';
const mg = new MediaGen({ apiKey: 'mg_x' });
const p: VideoGenerateParams = { model: 'video-a-h3', prompt: 'x', duration: 5 };
export async function f(): Promise<Task['status']> { const t = await mg.videos.generate(p); return (await mg.tasks.wait(t.taskId)).status; }
export const isPoor = (e: unknown) => e instanceof InsufficientBalanceError && e.costCents > 0;
`,
  );
  fs.writeFileSync(path.join(project, 'typed.cts'), `import { MediaGen } from '@mediagen/client';\nexport const mg: MediaGen = new MediaGen({ apiKey: 'mg_x' });\n`);
  const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
  // Types of Node itself from this repository (a consumer would have @types/node).
  const args = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--typeRoots', path.join(ROOT, 'node_modules/@types'), '--types', 'node', 'typed.mts', 'typed.cts'];
  const r = await run(process.execPath, [tsc, ...args], { cwd: project });
  expect(r.stdout + r.stderr).toBe('');
  expect(r.code).toBe(0);
});
