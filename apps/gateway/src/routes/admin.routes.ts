// Admin API (docs/api.md), behind ADMIN_TOKEN. Every balance change goes through
// creditAccount, so each top-up is a ledger entry.
import express, { Router } from 'express';
import { z } from 'zod';
import { AppError } from '@mediagen/errors';
import {
  createAccountWithBalance,
  creditAccount,
  findAccount,
  findTaskWithAttempts,
  MAX_BALANCE_CENTS,
  listApiKeys,
  listLedgerPage,
  listTasks,
  setAccountResultRetention,
  updateAccount,
} from '@mediagen/db';
import type { GatewayDeps } from '../deps';
import { adminIdempotency } from '../middleware/admin-idempotency';
import { issueApiKey, revokeKeyEverywhere } from '../services/key-admin';
import { adminTokenAudit } from '../services/audit-actor';
import { parseAdminBody } from '../services/admin-validation';
import { accountView, adminTaskView, apiKeyView } from '../services/admin-views';
import { decodeCursor, encodeCursor } from '../services/cursor';
import { TASK_STATUSES } from '@mediagen/catalog';
import { cursorParam, limitParam, parseQuery } from '../services/listing';

/** The ledger's actor for changes made with the admin token (the console writes operator:<name>). */
const ADMIN_ACTOR = 'admin-token';

/** Largest single top-up or adjustment: $10M. Balances are capped separately (MAX_BALANCE_CENTS). */
const MAX_CENTS = 1_000_000_000;

export const createAccountSchema = z.strictObject({
  name: z.string().trim().min(1).max(200),
  balanceCents: z.number().int().min(0).max(MAX_CENTS).optional(),
  maxConcurrentTasks: z.number().int().min(1).max(10_000).optional(),
  rateLimitPerMinute: z.number().int().min(1).max(1_000_000).nullable().optional(),
});
/** Longest result retention an account may be given: ten years (0 keeps results forever). */
const MAX_RETENTION_SECONDS = 10 * 365 * 86_400;
export const updateAccountSchema = createAccountSchema
  .omit({ balanceCents: true })
  .partial()
  .extend({
    /** Seconds results are kept after completion; 0 forever; null back to RESULT_RETENTION_SECONDS. */
    resultRetentionSeconds: z.number().int().min(0).max(MAX_RETENTION_SECONDS).nullable().optional(),
  });
export const creditSchema = z.strictObject({
  amountCents: z.number().int().min(-MAX_CENTS).max(MAX_CENTS).refine((v) => v !== 0, 'must not be 0'),
  reason: z.string().max(500).optional(),
});

/** Ledger pages: 100 entries by default as before, up to 1,000; nextCursor continues past them. */
export const ledgerQuerySchema = z.strictObject({ limit: limitParam(100, 1000), cursor: cursorParam });
export const adminTaskListQuerySchema = z.strictObject({
  accountId: z.string().min(1).max(200).optional(),
  status: z.enum(TASK_STATUSES).optional(),
  type: z.enum(['video', 'image']).optional(),
  model: z.string().min(1).max(100).optional(),
  limit: limitParam(50, 500),
  cursor: cursorParam,
});

export function adminRouter(deps: GatewayDeps): Router {
  const r = Router();
  const { db } = deps;
  r.use(express.json({ limit: '100kb' }));
  r.use(adminIdempotency(db));

  const accountOr404 = async (id: string) => {
    const a = await findAccount(db, id);
    if (!a) throw new AppError('not_found', `Account ${id} not found`);
    return accountView(a, deps.config.RATE_LIMIT_PER_MINUTE);
  };

  r.post('/accounts', async (req, res) => {
    const b = parseAdminBody(createAccountSchema, req.body);
    // One transaction: the account never exists without the balance it was created with.
    const { id } = await createAccountWithBalance(db, b, ADMIN_ACTOR, adminTokenAudit(req));
    res.status(201).json({ id, name: b.name, balanceCents: b.balanceCents ?? 0 });
  });

  r.get('/accounts/:id', async (req, res) => {
    res.json(await accountOr404(req.params.id));
  });

  r.patch('/accounts/:id', async (req, res) => {
    const { resultRetentionSeconds, ...limits } = parseAdminBody(updateAccountSchema, req.body);
    await accountOr404(req.params.id);
    await updateAccount(db, req.params.id, limits, adminTokenAudit(req));
    // Applied to the account's results not yet expired too (docs/data-retention.md).
    if (resultRetentionSeconds !== undefined) await setAccountResultRetention(db, req.params.id, resultRetentionSeconds, deps.config.RESULT_RETENTION_SECONDS);
    res.json(await accountOr404(req.params.id));
  });

  r.post('/accounts/:id/api-keys', async (req, res) => {
    await accountOr404(req.params.id);
    res.status(201).json(await issueApiKey(deps, req.params.id, adminTokenAudit(req)));
  });

  r.get('/accounts/:id/api-keys', async (req, res) => {
    res.json({ keys: (await listApiKeys(db, req.params.id)).map(apiKeyView) });
  });

  r.delete('/api-keys/:id', async (req, res) => {
    // Every gateway evicts its auth cache entry now, not when it expires.
    if (!(await revokeKeyEverywhere(deps, req.params.id, adminTokenAudit(req)))) throw new AppError('not_found', `API key ${req.params.id} not found`);
    res.status(204).end();
  });

  r.post('/accounts/:id/credits', async (req, res) => {
    const b = parseAdminBody(creditSchema, req.body);
    await accountOr404(req.params.id);
    const out = await creditAccount(db, req.params.id, b.amountCents, b.reason ?? null, ADMIN_ACTOR);
    if ('refused' in out && out.refused === 'below_zero')
      throw new AppError('validation_error', 'The adjustment would take the balance below zero', [{ path: 'amountCents', message: 'exceeds the balance' }]);
    if ('refused' in out)
      throw new AppError('balance_limit_exceeded', `The balance may not exceed ${MAX_BALANCE_CENTS} cents`, [{ path: 'amountCents', message: 'the balance would pass its maximum' }], { maxBalanceCents: MAX_BALANCE_CENTS });
    res.json(out);
  });

  r.get('/accounts/:id/ledger', async (req, res) => {
    const q = parseQuery(ledgerQuerySchema, req.query);
    await accountOr404(req.params.id);
    const page = await listLedgerPage(db, req.params.id, q.limit, decodeCursor('ledger', q.cursor));
    res.json({ entries: page.rows, nextCursor: encodeCursor('ledger', page.next) });
  });

  r.get('/tasks', async (req, res) => {
    const q = parseQuery(adminTaskListQuerySchema, req.query);
    const page = await listTasks(db, { accountId: q.accountId, status: q.status, type: q.type, model: q.model, limit: q.limit, before: decodeCursor('tasks', q.cursor) });
    res.json({ data: page.rows, nextCursor: encodeCursor('tasks', page.next) });
  });

  r.get('/tasks/:taskId', async (req, res) => {
    const t = await findTaskWithAttempts(db, req.params.taskId);
    if (!t) throw new AppError('not_found', `Task ${req.params.taskId} not found`);
    res.json(adminTaskView(t));
  });

  return r;
}
