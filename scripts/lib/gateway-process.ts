// Parent side of gateway-child.ts: starts the gateway under test in its own Node process and
// drives it over IPC (accounts, event-loop and memory watch, ledger figures, shutdown).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { appEnvFor, nodeFlagsFor } from './node-flags';

export interface WatchFigures {
  heldMax: number;
  heldP99: number;
  heldMaxAtEpochMs: number;
  wallLatenessMax: number;
  heapPeakMB: number;
  rssPeakMB: number;
  heapP50MB: number;
}

export interface GatewayProcess {
  base: string;
  pid: number;
  newAccount(balanceCents: number, extra?: Record<string, unknown>): Promise<{ id: string; key: string }>;
  watchStart(): Promise<void>;
  watchStop(): Promise<WatchFigures>;
  ledger(accounts: string[]): Promise<{ tasks: number; charges: number; discrepancies: number; balances: Record<string, number> }>;
  close(): Promise<void>;
}

export async function startGatewayProcess(label: string, env: Record<string, string> = {}): Promise<GatewayProcess> {
  // The child is the gateway under test: it runs with the gateway's Node flags.
  const child: ChildProcess = spawn(process.execPath, [...nodeFlagsFor('apps/gateway/src/main.ts'), ...(process.env.HOSTILE_NODE_ARGS ?? '').split(' ').filter(Boolean), '--import', 'tsx', path.join(__dirname, 'gateway-child.ts')], {
    cwd: path.resolve(__dirname, '../..'),
    env: { ...appEnvFor('apps/gateway/src/main.ts'), ...process.env, HOSTILE_LABEL: label, HOSTILE_ENV: JSON.stringify(env) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let next = 1;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.once('exit', (code) => {
    for (const p of pending.values()) p.reject(new Error(`gateway process exited (${code})`));
    pending.clear();
  });
  child.on('message', (m: { id: number; result?: unknown; error?: string }) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (m.error) p.reject(new Error(m.error));
    else p.resolve(m.result);
  });
  const call = <T>(cmd: string, args?: Record<string, unknown>, id = next++): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      if (id !== 0) child.send({ id, cmd, args });
    });
  const { base } = await call<{ base: string }>('ready', undefined, 0);
  return {
    base,
    pid: child.pid!,
    newAccount: (balanceCents, extra = {}) => call('account', { balanceCents, extra }),
    watchStart: () => call('watchStart'),
    watchStop: () => call('watchStop'),
    ledger: (accounts) => call('ledger', { accounts }),
    async close() {
      await call('close').catch(() => undefined);
      const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(t);
    },
  };
}
