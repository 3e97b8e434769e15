// Developer options: the holder's API keys. A new key is shown once, in the answer to the create
// form (not a redirect, never stored in clear); the list shows name, prefix, created and last used.
import { Router } from 'express';
import { z } from 'zod';
import { listApiKeys, MAX_LIVE_KEYS_PER_ACCOUNT } from '@mediagen/db';
import { ConsoleError, formOf, Render } from '@mediagen/console';
import type { AccountDeps } from '../deps';
import { accountOf, holderOf } from '../holder-session';

const createForm = z.object({ name: z.string().trim().min(1, 'a name, so you can tell your keys apart').max(100, 'at most 100 characters') });

export function keyRoutes(deps: AccountDeps, render: Render): Router {
  const r = Router();
  const page = async (res: Parameters<Render>[0], extra: Record<string, unknown> = {}, status = 200) => {
    const keys = await listApiKeys(deps.db, accountOf(res));
    render(res, 'keys', { title: 'API keys', keys, live: keys.filter((k) => !k.revokedAt).length, max: MAX_LIVE_KEYS_PER_ACCOUNT, ...extra }, status);
  };

  r.get('/keys', (_req, res) => page(res));

  r.post('/keys', async (req, res) => {
    const f = formOf(createForm, req.body);
    const h = holderOf(res);
    const created = await deps.issueApiKey(accountOf(res), f.name, { holderId: h.id, email: h.email, ip: req.ip ?? null });
    if (!created) throw new ConsoleError(422, `You have ${MAX_LIVE_KEYS_PER_ACCOUNT} live keys, the most an account may have. Revoke one you no longer use, then create the new one.`);
    await page(res, { newKey: { ...created, name: f.name } });
  });

  r.post('/keys/:id/revoke', async (req, res) => {
    const h = holderOf(res);
    // Another account's key is "no such key" (404), never "not yours".
    if (!(await deps.revokeApiKey(accountOf(res), String(req.params.id).slice(0, 100), { holderId: h.id, email: h.email, ip: req.ip ?? null })))
      throw new ConsoleError(404, 'No such API key.');
    res.redirect(303, '/account/keys');
  });

  return r;
}
