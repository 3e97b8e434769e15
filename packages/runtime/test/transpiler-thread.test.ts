// An app started through tsx with an empty transform cache (a fresh container) must not keep
// esbuild's worker thread, a second V8 isolate of ~25 MiB, for its whole life (transpiler-thread.ts).
// Run in a child process as the gateway is: `node --import tsx`, a temporary directory of its own so
// tsx's cache is empty and the first file it compiles starts the thread.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const linux = process.platform === 'linux';

(linux ? it : it.skip)('stopTranspilerThread ends the esbuild worker thread tsx started to compile a file', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-transpiler-'));
  try {
    // A file tsx has never compiled (a unique constant), loaded after start-up like a late module.
    fs.writeFileSync(path.join(tmp, 'late.ts'), `export const late: number = ${Date.now()};\n`);
    const probe = `
      import fs from 'node:fs';
      import { stopTranspilerThread } from ${JSON.stringify(path.join(ROOT, 'packages/runtime/src/transpiler-thread.ts'))};
      const workers = () => fs.readdirSync('/proc/self/task').filter((t) => fs.readFileSync('/proc/self/task/' + t + '/comm', 'utf8').trim() === 'WorkerThread').length;
      require(${JSON.stringify(path.join(tmp, 'late.ts'))});
      const before = workers();
      stopTranspilerThread();
      setTimeout(() => console.log(JSON.stringify({ before, after: workers() })), 200);
    `;
    fs.writeFileSync(path.join(tmp, 'probe.ts'), probe);
    const out = execFileSync(process.execPath, ['--import', 'tsx', path.join(tmp, 'probe.ts')], {
      cwd: ROOT,
      env: { ...process.env, TMPDIR: tmp },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(JSON.parse(out.trim().split('\n').pop()!)).toEqual({ before: 1, after: 0 });
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
