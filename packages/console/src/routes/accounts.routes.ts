// Accounts: list and search, create (with an opening balance, one transaction), one account's
// page (balance, limits, top-up with a reason, API keys, ledger with links to tasks).
import { Router } from 'express';
import { z } from 'zod';
import {
  createAccountWithBalance,
  creditAccount,
  findAccount,
  listAccounts,
  listApiKeys,
  listLedgerPage,
  MAX_BALANCE_CENTS,
  setAccountResultRetention,
  updateAccount,
} from '@mediagen/db';
import { listEndpoints } from '@mediagen/webhooks';
import type { ConsoleDeps } from '../deps';
import type { Render } from '../render';
import { actorOf, auditOf, requireAdmin } from '../guards';
import { ConsoleError } from '../console-error';
import { newOnceToken, oncePerForm } from '../form-once';
import { decodePageCursor, encodePageCursor } from '../page-cursor';
import { formOf } from '../forms';

const PAGE = 50;
const dollars = z
  .string()
  .trim()
  .regex(/^-?\d{1,8}(\.\d{1,2})?$/, 'an amount in dollars such as 25 or 12.50')
  .transform((v) => Math.round(Number(v) * 100));

const createForm = z.object({
  name: z.string().trim().min(1, 'a name').max(200),
  balance: z.union([z.literal('').transform(() => 0), dollars.refine((c) => c >= 0, 'not negative')]).default(0),
  maxConcurrentTasks: z.union([z.literal('').transform(() => undefined), z.coerce.number().int().min(1).max(10_000)]).optional(),
});
const creditForm = z.object({
  amount: dollars.refine((c) => c !== 0, 'not zero'),
  reason: z.string().trim().min(3, 'a reason (it is written to the ledger)').max(500),
});
const limitsForm = z.object({
  maxConcurrentTasks: z.coerce.number().int().min(1).max(10_000),
  rateLimitPerMinute: z.union([z.literal('').transform(() => null), z.coerce.number().int().min(1).max(1_000_000)]),
  /** Seconds, as the admin API takes it; empty: the service default; 0: kept forever. Absent: unchanged. */
  resultRetentionSeconds: z.union([z.literal('').transform(() => null), z.coerce.number().int().min(0).max(10 * 365 * 86_400)]).optional(),
});

const WEBHOOK_EVENTS = ['task.completed', 'task.failed'] as const;
/** The create-webhook form: a URL and the events (checkboxes: one value or several; none means both). */
const webhookForm = z.object({
  url: z.string().trim().min(1, 'the URL is required').max(2048),
  events: z
    .union([z.enum(WEBHOOK_EVENTS), z.array(z.enum(WEBHOOK_EVENTS))])
    .optional()
    .transform((v) => (v === undefined ? [...WEBHOOK_EVENTS] : Array.isArray(v) ? [...new Set(v)] : [v])),
});

export function accountRoutes(deps: ConsoleDeps, render: Render): Router {
  const r = Router();
  const { db } = deps;

  r.get('/accounts', async (req, res) => {
    const q = typeof req.query.q === 'string' ? req.query.q.trim().slice(0, 200) : '';
    const page = await listAccounts(db, { search: q || undefined, before: decodePageCursor(req.query.cursor), limit: PAGE });
    render(res, 'accounts', { title: 'Accounts', q, accounts: page.rows, nextCursor: encodePageCursor(page.next), once: newOnceToken() });
  });

  r.post('/accounts', requireAdmin, async (req, res) => {
    const f = formOf(createForm, req.body);
    const location = await oncePerForm(db, req, async () => {
      if (f.balance > MAX_BALANCE_CENTS) throw new ConsoleError(422, 'The opening balance is above the maximum balance.');
      const { id } = await createAccountWithBalance(db, { name: f.name, balanceCents: f.balance, maxConcurrentTasks: f.maxConcurrentTasks }, actorOf(res.locals.session), auditOf(req, res.locals.session));
      return `/console/accounts/${encodeURIComponent(id)}`;
    });
    res.redirect(303, location);
  });

  const showAccount = async (req: Parameters<Parameters<typeof r.get>[1]>[0], res: Parameters<Render>[0], extra: Record<string, unknown> = {}) => {
    const id = String(req.params.id);
    const account = await findAccount(db, id);
    if (!account) throw new ConsoleError(404, `No account ${id}. Search for it on the Accounts page.`);
    const [keys, ledger, webhooks] = await Promise.all([listApiKeys(db, id), listLedgerPage(db, id, PAGE, decodePageCursor(req.query.cursor)), listEndpoints(db, id)]);
    render(res, 'account', {
      title: account.name,
      account,
      defaultRateLimit: deps.defaultRateLimitPerMinute,
      defaultRetention: deps.defaultResultRetentionSeconds,
      keys,
      webhooks,
      ledger: ledger.rows,
      nextCursor: encodePageCursor(ledger.next),
      once: newOnceToken(),
      ...extra,
    });
  };

  r.get('/accounts/:id', (req, res) => showAccount(req, res));

  r.post('/accounts/:id/credits', requireAdmin, async (req, res) => {
    const f = formOf(creditForm, req.body);
    const id = String(req.params.id);
    const location = await oncePerForm(db, req, async () => {
      if (!(await findAccount(db, id))) throw new ConsoleError(404, `No account ${id}.`);
      const out = await creditAccount(db, id, f.amount, f.reason, actorOf(res.locals.session));
      if ('refused' in out) {
        throw new ConsoleError(422, out.refused === 'below_zero' ? 'The adjustment would take the balance below zero.' : 'The balance would pass its maximum.');
      }
      return `/console/accounts/${encodeURIComponent(id)}`;
    });
    res.redirect(303, location);
  });

  r.post('/accounts/:id/limits', requireAdmin, async (req, res) => {
    const f = formOf(limitsForm, req.body);
    const id = String(req.params.id);
    const { resultRetentionSeconds, ...limits } = f;
    const before = await findAccount(db, id);
    if (!before) throw new ConsoleError(404, `No account ${id}.`);
    await updateAccount(db, id, limits, auditOf(req, res.locals.session));
    // Re-stamps the account's unexpired results (docs/data-retention.md): only when it changed.
    if (resultRetentionSeconds !== undefined && resultRetentionSeconds !== before.resultRetentionSeconds)
      await setAccountResultRetention(db, id, resultRetentionSeconds, deps.defaultResultRetentionSeconds);
    res.redirect(303, `/console/accounts/${encodeURIComponent(id)}`);
  });

  // The new key is in this answer only (not a redirect, never stored): shown once.
  r.post('/accounts/:id/keys', requireAdmin, async (req, res) => {
    const id = String(req.params.id);
    if (!(await findAccount(db, id))) throw new ConsoleError(404, `No account ${id}.`);
    const created = await deps.issueApiKey(id, auditOf(req, res.locals.session));
    await showAccount(req, res, { newKey: created });
  });

  // A webhook endpoint: its signing secret is in this answer only (not a redirect, never shown again).
  r.post('/accounts/:id/webhooks', requireAdmin, async (req, res) => {
    const f = formOf(webhookForm, req.body);
    const id = String(req.params.id);
    if (!(await findAccount(db, id))) throw new ConsoleError(404, `No account ${id}.`);
    const created = await deps.createWebhook(id, f.url, f.events);
    if ('refused' in created) throw new ConsoleError(422, `The webhook was not created: ${created.refused}`);
    await showAccount(req, res, { newWebhook: created });
  });

  r.post('/keys/:keyId/revoke', requireAdmin, async (req, res) => {
    if (!(await deps.revokeApiKey(String(req.params.keyId), auditOf(req, res.locals.session)))) throw new ConsoleError(404, 'No such API key.');
    const back = typeof req.body?.accountId === 'string' ? `/console/accounts/${encodeURIComponent(req.body.accountId)}` : '/console/accounts';
    res.redirect(303, back);
  });

  return r;
}
