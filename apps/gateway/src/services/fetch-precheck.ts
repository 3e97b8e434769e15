// Before a submit makes the gateway fetch anything: reference URLs are fetched for
// the client, so a key without money or at its in-progress limit must not buy downloads. One
// indexed read of the account refuses with the same 402/429 the billing transaction would give
// (that transaction still decides: this is only a cheap early no). The balance is compared with a
// lower bound of the cost (every reference measured at its shortest), never more than it will be.
// A per-account cap on inspections running at once (per gateway process) bounds what one account
// can make us fetch in parallel, whatever its balance.
import { AppError } from '@mediagen/errors';
import { computeCost, type MediaRef, type TaskSpec } from '@mediagen/catalog';
import { findAccountAdmission, SubmitRefused } from '@mediagen/db';
import type { GatewayDeps } from '../deps';
import { refusalError } from './refusals';

export const MAX_INSPECTIONS_PER_ACCOUNT = 2;

function costFloorCents(spec: TaskSpec, refs: MediaRef[]): number {
  try {
    const shortest = 0.001;
    return computeCost(spec, {
      videoSeconds: refs.filter((r) => r.kind === 'video').map(() => shortest),
      audioSeconds: refs.filter((r) => r.kind === 'audio').map(() => shortest),
    }).costCents;
  } catch {
    return 1; // a model whose price needs more than that: any positive balance passes this check
  }
}

export async function precheckBeforeFetch(deps: GatewayDeps, accountId: string, spec: TaskSpec, refs: MediaRef[]): Promise<void> {
  const acc = await findAccountAdmission(deps.db, accountId);
  if (!acc) throw new AppError('unauthorized', 'The account of this API key no longer exists');
  const balance = acc.balanceCents;
  if (acc.tasksInProgress >= acc.maxConcurrentTasks) {
    throw refusalError(new SubmitRefused('too_many_tasks', balance, acc.tasksInProgress, acc.maxConcurrentTasks), 0, deps.config.TOP_UP_URL);
  }
  const floor = costFloorCents(spec, refs);
  if (balance < floor) {
    throw refusalError(new SubmitRefused('insufficient_balance', balance, acc.tasksInProgress, acc.maxConcurrentTasks), floor, deps.config.TOP_UP_URL);
  }
}

/** Runs `fn` as one of the account's inspections; 429 when it already has the maximum running. */
export async function withInspectionSlot<T>(deps: Pick<GatewayDeps, 'inspections'>, accountId: string, fn: () => Promise<T>): Promise<T> {
  const running = deps.inspections;
  const n = running.get(accountId) ?? 0;
  if (n >= MAX_INSPECTIONS_PER_ACCOUNT) {
    throw new AppError('rate_limited', `This account already has ${n} submits reading reference files; retry when one is done`, undefined, undefined, { 'Retry-After': '2' });
  }
  running.set(accountId, n + 1);
  try {
    return await fn();
  } finally {
    const left = (running.get(accountId) ?? 1) - 1;
    if (left <= 0) running.delete(accountId);
    else running.set(accountId, left);
  }
}
