// Every snippet of the README and of the front page `/` runs as pasted against a running stack, the
// way a new user runs them: the shell blocks in bash, the SDK block saved as sdk.mjs and run with
// `node sdk.mjs` in a project that installed the SDK from the tarball the README makes.
// What the test changes in the text, and only that: the gateway's address (http://localhost:3000 ->
// this stack's), the webhook receiver's port (8080 -> a free one) and the project folder
// (~/my-project -> a temporary one). The printed development key is made valid in the stack's
// database the way `npm start` makes it (scripts/dev-bootstrap.ts).
// A new README block fails the test until it is run here or listed as not run, with the reason.
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bootstrapDevAccount, DEV_API_KEY } from '../../scripts/dev-bootstrap';
import { freePort } from './support/processes';
import type { Stack } from './support/stack';
import { e2eSuite } from './support/suite';
import { eventually } from './support/wait';

jest.setTimeout(300_000);

const ROOT = path.join(__dirname, '..', '..');
let stack: Stack;
e2eSuite('readme', { stack: { env: { SIM_RENDER_MS: '300' } } }, (s) => ({ stack } = s));

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-readme-'));
const project = path.join(work, 'my-project');
const started: ChildProcess[] = [];
afterAll(() => {
  // The whole process group: a block's bash may be gone while what it started in the background is not.
  for (const c of started) {
    try {
      process.kill(-c.pid!, 'SIGTERM');
    } catch {
      /* the group has ended */
    }
  }
  fs.rmSync(work, { recursive: true, force: true });
});

interface Block {
  lang: string;
  code: string;
  /** The `## ` heading it sits under. */
  section: string;
}

function readmeBlocks(): Block[] {
  const out: Block[] = [];
  let section = '';
  const lines = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (/^#{2,3} /.test(lines[i])) section = lines[i].replace(/^#+ /, '');
    const open = /^```(\w*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]); i++) body.push(lines[i]);
    out.push({ lang: open[1], code: body.join('\n'), section });
  }
  return out;
}

const decode = (html: string) => html.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');

/** The text as pasted, pointed at this stack (and the given port / project folder). */
function localise(code: string, extra: Record<string, string> = {}): string {
  let out = code.replaceAll('http://localhost:3000', stack.gatewayUrl).replaceAll('~/my-project', project);
  for (const [from, to] of Object.entries(extra)) out = out.replaceAll(from, to);
  return out;
}

/** Runs a shell block in bash, in its own process group (a block may leave a server running). */
function bash(code: string, cwd: string, env: Record<string, string> = {}): { child: ChildProcess; output: () => string; done: Promise<number> } {
  let output = '';
  const child = spawn('bash', ['-e', '-c', code], { cwd, env: { ...process.env, ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const done = new Promise<number>((resolve) => child.once('close', (code) => resolve(code ?? 1)));
  return { child, output: () => output, done };
}

async function runBlock(code: string, cwd: string, env: Record<string, string> = {}): Promise<string> {
  const r = bash(code, cwd, env);
  const status = await r.done;
  if (status !== 0) throw new Error(`exit ${status}:\n${code}\n---\n${r.output().slice(-3000)}`);
  return r.output();
}

const blocks = readmeBlocks();
const find = (section: string, test: (b: Block) => boolean) => {
  const b = blocks.find((x) => x.section === section && test(x));
  if (!b) throw new Error(`no such README block in "${section}"`);
  return b;
};

/** Blocks this test does not run, and why. */
const NOT_RUN: { section: string; starts: string; why: string }[] = [
  { section: 'Run it', starts: 'npm install', why: 'the start itself: test/e2e/bare-machine.e2e.test.ts runs it from a mode-700 clone' },
  { section: 'Run it', starts: 'READY', why: 'output, not a command' },
  { section: 'Test', starts: 'npm test', why: 'the whole suite' },
  { section: 'Layout', starts: 'apps/gateway', why: 'a file tree' },
];
const RUN: { section: string; starts: string }[] = [
  { section: 'First request', starts: 'KEY=' },
  { section: 'First request', starts: 'curl -s http://localhost:3000/api/video/generate' },
  { section: 'First request', starts: 'node -e' },
  { section: 'SDK and command line', starts: 'import' },
  { section: 'SDK and command line', starts: 'export MEDIAGEN_API_KEY' },
  { section: 'Install from a tarball', starts: 'mkdir -p ~/my-project' },
  { section: 'Python', starts: 'from mediagen import MediaGen' },
];

/** A Python 3.10+ that imports httpx (Debian's python3-httpx; .ci/run installs it), else undefined. */
const python = ['/usr/bin/python3', 'python3'].find((p) => {
  try {
    execFileSync(p, ['-c', 'import sys, httpx; assert sys.version_info >= (3, 10)'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
});

it('every README block is either run below or listed as not run', () => {
  const known = [...NOT_RUN, ...RUN];
  const unknown = blocks.filter((b) => !known.some((k) => k.section === b.section && b.code.startsWith(k.starts)));
  expect(unknown.map((b) => `${b.section}: ${b.code.split('\n')[0]}`)).toEqual([]);
});

describe('README, in the order a new user meets it', () => {
  beforeAll(async () => {
    // What `npm start` does in development: the printed key exists and works.
    await bootstrapDevAccount(stack.env.DATABASE_URL, path.join(work, 'data'));
  });

  it('First request: the image submit and its poll, as pasted', async () => {
    const out = await runBlock(localise(find('First request', (b) => b.code.startsWith('KEY=')).code), work);
    expect(JSON.parse(out.trim())).toMatchObject({ status: expect.stringMatching(/^(pending|processing|completed)$/), type: 'image' });
  });

  it('First request: the video submit', async () => {
    const out = await runBlock(localise(find('First request', (b) => b.code.includes('/api/video/generate')).code), work);
    expect(JSON.parse(out.trim())).toMatchObject({ taskId: expect.any(String), status: 'pending' });
  });

  it('First request: the local webhook receiver prints the signed task.completed event', async () => {
    const port = String(await freePort());
    const r = bash(localise(find('First request', (b) => b.code.startsWith('node -e')).code, { '8080': port }), work);
    const event = await eventually('the receiver to print the event', async () => /\{"type":"task\.completed"[^\n]*\n/.exec(r.output())?.[0], 60_000);
    expect(JSON.parse(event)).toMatchObject({ type: 'task.completed', data: { status: 'completed', model: 'image-b-2.5' } });
    expect(r.output()).not.toMatch(/"code":"validation_error"/);
  });

  it('Install from a tarball: packs the SDK into the project and installs it there', async () => {
    const out = await runBlock(localise(find('Install from a tarball', (b) => b.code.startsWith('mkdir')).code), ROOT, {
      MEDIAGEN_API_KEY: DEV_API_KEY,
      MEDIAGEN_BASE_URL: stack.gatewayUrl,
    });
    expect(fs.readdirSync(project).some((f) => /^mediagen-client-.*\.tgz$/.test(f))).toBe(true);
    expect(out).toMatch(/USD/); // `npx mediagen balance`
  });

  it('SDK: the block saved as sdk.mjs runs with `node sdk.mjs`', async () => {
    fs.writeFileSync(path.join(project, 'sdk.mjs'), localise(find('SDK and command line', (b) => b.code.startsWith('import')).code));
    const out = await runBlock('node sdk.mjs', project, { MEDIAGEN_API_KEY: DEV_API_KEY });
    expect(out).toContain(`${stack.gatewayUrl}/files/results/`);
  });

  it('CLI: image, video, tasks, models and balance in the project', async () => {
    const out = await runBlock(localise(find('SDK and command line', (b) => b.code.startsWith('export MEDIAGEN_API_KEY')).code), project);
    expect(fs.statSync(path.join(project, 'fox.png')).size).toBeGreaterThan(0);
    expect(fs.statSync(path.join(project, 'fox.mp4')).size).toBeGreaterThan(0);
    expect(out).toMatch(/image-b-2\.5\s+image/);
    expect(out).toMatch(/USD/);
  });
});

describe('README, Python', () => {
  (python ? it : it.skip)(`the Python block runs with ${python ?? 'no Python with httpx here'} (the SDK from clients/python; "mg_..." is the key)`, async () => {
    const code = localise(find('Python', (b) => b.code.startsWith('from mediagen')).code, { 'mg_...': DEV_API_KEY });
    fs.writeFileSync(path.join(work, 'first.py'), code);
    const out = await runBlock(`${python} first.py`, work, { PYTHONPATH: path.join(ROOT, 'clients/python') });
    expect(out).toContain(`${stack.gatewayUrl}/files/results/`);
  });
});

describe('front page /', () => {
  it('its SDK and CLI snippets run as shown', async () => {
    const html = await (await fetch(`${stack.gatewayUrl}/`)).text();
    const snippets = [...html.matchAll(/<pre[^>]*><code>([\s\S]*?)<\/code><\/pre>/g)].map((m) => decode(m[1]));
    expect(snippets).toHaveLength(2);
    const [sdk, cli] = snippets;
    fs.writeFileSync(path.join(project, 'front-page.mjs'), sdk);
    expect(await runBlock('node front-page.mjs', project, { MEDIAGEN_API_KEY: DEV_API_KEY })).toContain(`${stack.gatewayUrl}/files/results/`);
    const out = await runBlock(cli.replace('MEDIAGEN_API_KEY=mg_...', `MEDIAGEN_API_KEY=${DEV_API_KEY}`), project);
    expect(out).toMatch(/USD/);
  });
});
