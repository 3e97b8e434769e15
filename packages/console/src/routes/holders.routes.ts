// Account holders (people who signed up at /account): list with email, verified, sign-up time and
// state; admins disable one (their sessions and API keys stop at once, on every gateway) and enable
// again, and make invitation links (SIGNUP_MODE=invite). Card top-ups with their payment reference.
import { Router } from 'express';
import { listHolders, listTopUps } from '@mediagen/db';
import type { ConsoleDeps } from '../deps';
import type { Render } from '../render';
import { requireAdmin } from '../guards';
import { ConsoleError } from '../console-error';
import { decodePageCursor, encodePageCursor } from '../page-cursor';

const PAGE = 50;

export function holderRoutes(deps: ConsoleDeps, render: Render): Router {
  const r = Router();

  r.get('/holders', async (req, res) => {
    const q = typeof req.query.q === 'string' ? req.query.q.trim().slice(0, 200) : '';
    const page = await listHolders(deps.db, { search: q || undefined, before: decodePageCursor(req.query.cursor), limit: PAGE });
    render(res, 'holders', { title: 'Holders', q, holders: page.rows, nextCursor: encodePageCursor(page.next), signupMode: deps.holders?.signupMode ?? 'closed', invite: null });
  });

  r.post('/holders/:accountId/:action', requireAdmin, async (req, res) => {
    const action = String(req.params.action);
    if ((action !== 'disable' && action !== 'enable') || !deps.holders) throw new ConsoleError(404, 'Holders can be disabled or enabled.');
    const s = res.locals.session as { operator: { id: string; name: string } };
    const out = await deps.holders.setDisabled(String(req.params.accountId), action === 'disable', { type: 'operator', id: s.operator.id, name: s.operator.name }, req.ip ?? null);
    if (out === null) throw new ConsoleError(404, 'No such account.');
    res.redirect(303, '/console/holders');
  });

  // The link is in this answer only (the database keeps its hash): shown once.
  r.post('/holders/invites', requireAdmin, async (req, res) => {
    if (!deps.holders) throw new ConsoleError(404, 'Account holder pages are not mounted.');
    const s = res.locals.session as { operator: { name: string } };
    const invite = await deps.holders.createInvite(`operator:${s.operator.name}`);
    const page = await listHolders(deps.db, { limit: PAGE });
    render(res, 'holders', { title: 'Holders', q: '', holders: page.rows, nextCursor: encodePageCursor(page.next), signupMode: deps.holders.signupMode, invite });
  });

  r.get('/top-ups', async (req, res) => {
    const account = typeof req.query.account === 'string' ? req.query.account.trim().slice(0, 100) : '';
    const page = await listTopUps(deps.db, { accountId: account || undefined, before: decodePageCursor(req.query.cursor), limit: PAGE });
    render(res, 'top-ups', { title: 'Top-ups', account, topUps: page.rows, nextCursor: encodePageCursor(page.next) });
  });

  return r;
}
