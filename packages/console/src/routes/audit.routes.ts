// The audit trail (admins only): who changed what, newest first, filtered by actor type, action,
// account or target, in keyset pages. Viewers do not see it: it names people and addresses.
import { Router } from 'express';
import { AUDIT_ACTOR_TYPES, AuditActorType, InvalidAuditCursorError, listAuditEvents } from '@mediagen/db';
import type { ConsoleDeps } from '../deps';
import type { Render } from '../render';
import { requireAdmin } from '../guards';
import { ConsoleError } from '../console-error';

const PAGE = 50;
const text = (v: unknown, max = 200) => (typeof v === 'string' ? v.trim().slice(0, max) : '');

export function auditRoutes(deps: ConsoleDeps, render: Render): Router {
  const r = Router();

  r.get('/audit', requireAdmin, async (req, res) => {
    const f = { actor: text(req.query.actor, 20), action: text(req.query.action, 100), account: text(req.query.account), target: text(req.query.target) };
    if (f.actor && !AUDIT_ACTOR_TYPES.includes(f.actor as AuditActorType)) throw new ConsoleError(422, `Actor is one of ${AUDIT_ACTOR_TYPES.join(', ')}.`);
    const cursor = text(req.query.cursor, 400) || undefined;
    let page;
    try {
      page = await listAuditEvents(deps.db, {
        actorType: (f.actor || undefined) as AuditActorType | undefined,
        action: f.action || undefined,
        accountId: f.account || undefined,
        targetId: f.target || undefined,
        cursor,
        limit: PAGE,
      });
    } catch (e) {
      if (e instanceof InvalidAuditCursorError) throw new ConsoleError(400, 'That page link is not valid any more. Start again from the first page.');
      throw e;
    }
    const events = page.events.map((e) => ({ ...e, beforeText: e.before == null ? '' : JSON.stringify(e.before), afterText: e.after == null ? '' : JSON.stringify(e.after) }));
    render(res, 'audit', { title: 'Audit trail', f, actorTypes: AUDIT_ACTOR_TYPES, events, nextCursor: page.nextCursor });
  });

  return r;
}
