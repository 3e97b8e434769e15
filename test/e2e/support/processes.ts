// Child processes of an end-to-end test: each app runs as its own Node process through tsx, with
// its output in a log file (printed when a test fails, see stack.ts).
import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

export interface Proc {
  name: string;
  child: ChildProcess;
  logFile: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function startProcess(name: string, entry: string, env: Record<string, string>, logDir: string): Proc {
  const logFile = path.join(logDir, `${name}.log`);
  const out = fs.openSync(logFile, 'a');
  // `node --import tsx` rather than the tsx CLI: the CLI runs the app in a grandchild process, so a
  // SIGKILL aimed at "the worker" would only kill the wrapper and leave the worker running.
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, entry)], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { name, child, logFile, exited };
}

/** SIGTERM, then SIGKILL if the process has not exited after `graceMs`. */
export async function stopProcess(p: Proc, graceMs = 8_000): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill('SIGTERM');
  const timer = setTimeout(() => p.child.kill('SIGKILL'), graceMs);
  await p.exited;
  clearTimeout(timer);
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export async function waitForHealthy(url: string, p: Proc, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (p.child.exitCode !== null) throw new Error(`${p.name} exited early:\n${tail(p.logFile)}`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${p.name} not healthy at ${url} after ${timeoutMs} ms:\n${tail(p.logFile)}`);
}

export function tail(file: string, lines = 40): string {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
