// The Python SDK (clients/python, package `mediagen`) against the running stack, from `npm test`:
// its own test suite (clients/python/tests: retries and errors on a mock transport, webhook
// verification, the typed models checked against /openapi.json, and the sync and async clients end
// to end) runs under pytest, or unittest where pytest is missing, with the stack's URL, a funded
// key and the admin token in its environment. Skipped, with the reason printed, only where no
// Python 3.10+ that can import httpx exists (`apt-get install python3-httpx`; .ci/run does it).
import { execFile, execFileSync } from 'node:child_process';
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
}
