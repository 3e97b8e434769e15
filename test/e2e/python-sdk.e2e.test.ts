// The Python SDK (clients/python, package `mediagen`) against the running stack, from `npm test`:
// its own test suite (clients/python/tests: retries and errors on a mock transport, webhook
// verification, the typed models checked against /openapi.json, and the sync and async clients end
// to end) runs under pytest, or unittest where pytest is missing, with the stack's URL, a funded
// key and the admin token in its environment. Skipped, with the reason printed, only where no
// Python 3.10+ that can import httpx exists (`apt-get install python3-httpx`; .ci/run does it).
// Then as a new user: the wheel built from clients/python, unpacked into an empty folder (what pip
// installs), runs the README's five-line start against the stack.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Account } from './support/api';
import type { Stack } from './support/stack';
import { e2eSuite } from './support/suite';

jest.setTimeout(240_000);

const DIR = path.join(__dirname, '..', '..', 'clients', 'python');

/** Debian's python3 first: its python3-httpx / python3-pytest install for /usr/bin/python3 only. */
function findPython(): { bin: string; pytest: boolean } | string {
  const tried: string[] = [];
  for (const bin of ['/usr/bin/python3', 'python3', 'python']) {
    try {
      const out = execFileSync(bin, ['-c', 'import sys, httpx; print(sys.version_info >= (3, 10))'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
      if (out !== 'True') {
        tried.push(`${bin}: older than 3.10`);
        continue;
      }
      let pytest = true;
      try {
        execFileSync(bin, ['-c', 'import pytest'], { stdio: 'ignore' });
      } catch {
        pytest = false;
      }
      return { bin, pytest };
    } catch {
      tried.push(`${bin}: missing or no httpx`);
    }
  }
  return `Python SDK tests skipped: no Python 3.10+ with httpx (${tried.join('; ')}); apt-get install python3-httpx python3-pytest`;
}

const python = findPython();

if (typeof python === 'string') {
  console.warn(python);
  test.skip(python, () => undefined);
} else {
  let stack: Stack;
  let account: Account;
  e2eSuite('python-sdk', { balanceCents: 100_000 }, (s) => ({ stack, account } = s));

  test(`the Python SDK's tests pass against the stack (${python.bin}, ${python.pytest ? 'pytest' : 'unittest'})`, async () => {
    const args = python.pytest ? ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'tests'] : ['-m', 'unittest', 'discover', '-s', 'tests', '-v'];
    const r = await new Promise<{ code: number; out: string }>((resolve) =>
      execFile(
        python.bin,
        args,
        {
          cwd: DIR,
          maxBuffer: 10 * 1024 * 1024,
          env: {
            ...process.env,
            PYTHONPATH: DIR,
            PYTHONDONTWRITEBYTECODE: '1',
            MEDIAGEN_BASE_URL: stack.gatewayUrl,
            MEDIAGEN_API_KEY: account.apiKey,
            MEDIAGEN_ADMIN_TOKEN: stack.adminToken,
          },
        },
        (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: `${stdout}\n${stderr}` }),
      ),
    );
    if (r.code !== 0) console.error(r.out);
    expect(r.code).toBe(0);
    // Nothing was skipped: the stack tests really ran.
    expect(r.out).not.toMatch(/skipped|skip=/i);
    expect(r.out).toMatch(python.pytest ? /\d+ passed/ : /\nOK/);
  });

  test('the wheel, unpacked into an empty folder, runs the README five-line start: the first image, with progress', async () => {
    const run = (args: string[], opts: { cwd: string; env?: Record<string, string> }) =>
      new Promise<{ code: number; out: string }>((resolve) =>
        execFile(python.bin, args, { cwd: opts.cwd, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...opts.env } }, (err, stdout, stderr) =>
          resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
        ),
      );
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'mediagen-wheel-'));
    const built = path.join(work, 'dist');
    fs.mkdirSync(built);
    try {
      // setuptools' PEP 517 backend, as `pip wheel` calls it (Debian: python3-setuptools, python3-wheel).
      const wheel = await run(['-c', `import setuptools.build_meta as b; print('WHEEL=' + b.build_wheel(${JSON.stringify(built)}))`], { cwd: DIR });
      if (wheel.code !== 0) {
        console.warn(`wheel check skipped: no wheel build here (apt-get install python3-setuptools python3-wheel): ${wheel.out.slice(-300)}`);
        return;
      }
      const file = path.join(built, /WHEEL=(\S+)/.exec(wheel.out)![1]);
      expect(path.basename(file)).toMatch(/^mediagen-\d+\.\d+\.\d+-py3-none-any\.whl$/);
      const site = path.join(work, 'site');
      expect((await run(['-m', 'zipfile', '-e', file, site], { cwd: work })).code).toBe(0);
      const readme = fs.readFileSync(path.join(DIR, 'README.md'), 'utf8');
      const snippet = /## Five-line start[\s\S]*?```python\n([\s\S]*?)```/.exec(readme)![1];
      expect(snippet.trim().split('\n')).toHaveLength(5);
      const app = path.join(work, 'app');
      fs.mkdirSync(app);
      fs.writeFileSync(path.join(app, 'first.py'), snippet.replace('"mg_..."', JSON.stringify(account.apiKey)).replace('"http://localhost:3000"', JSON.stringify(stack.gatewayUrl)));
      const r = await run(['first.py'], { cwd: app, env: { PYTHONPATH: site } });
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/completed/);
      expect(r.out).toMatch(/\['http[^']+\.png'\]/);
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
      for (const junk of ['build', 'mediagen.egg-info']) fs.rmSync(path.join(DIR, junk), { recursive: true, force: true });
    }
  });
}
