// The lifecycle every end-to-end file shares: start a stack (gateway, workers, simulator as
// processes on the file's own schema and Redis prefix) and a funded account before the tests,
// and after them check the ledger invariant and stop everything.
import { Account, apiClient } from './api';
import { ledgerViolations } from './ledger';
import { openApiViolations } from './openapi-check';
import { Stack, StackOptions, startStack } from './stack';

export interface Suite {
  stack: Stack;
  api: ReturnType<typeof apiClient>;
  account: Account;
}

export interface SuiteOptions {
  /** Stack options, or a function that prepares them (temp files, proxies) inside beforeAll. */
  stack?: StackOptions | (() => StackOptions | Promise<StackOptions>);
  balanceCents?: number;
  maxConcurrentTasks?: number;
}

/** Registers beforeAll/afterAll for this file; `ready` receives the running suite. */
export function e2eSuite(label: string, opts: SuiteOptions, ready: (s: Suite) => void): void {
  let stack: Stack | undefined;
  beforeAll(async () => {
    const stackOpts = typeof opts.stack === 'function' ? await opts.stack() : opts.stack;
    stack = await startStack(label, stackOpts);
    const api = apiClient(stack);
    const account = await api.newAccount(opts.balanceCents ?? 100_000, opts.maxConcurrentTasks);
    ready({ stack, api, account });
  }, 90_000);

  afterAll(async () => {
    if (!stack) return;
    try {
      expect(await ledgerViolations(stack.db)).toEqual([]);
      // Every response this file's tests received matches the OpenAPI document.
      expect(openApiViolations()).toEqual([]);
    } finally {
      await stack.stop();
    }
  }, 60_000);
}
