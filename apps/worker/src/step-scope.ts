// Which task (and account) the running step serves, for code the step calls through layers that
// do not carry it: the channel observer attributes each upstream outcome to an account, so the
// breaker can tell one customer's refused prompts from a channel that fails everyone.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface StepScope {
  taskId: string;
  /** Set once the step has loaded its task. */
  accountId?: string;
}

const storage = new AsyncLocalStorage<StepScope>();

export const runInStepScope = <T>(scope: StepScope, fn: () => Promise<T>): Promise<T> => storage.run(scope, fn);
export const currentStepScope = (): StepScope | undefined => storage.getStore();
