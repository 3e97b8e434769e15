// The audit actor of a request made with the admin token: the token names no person, so the
// trail records the kind of actor and the client address (Express's req.ip, which follows the
// trust-proxy setting).
import type { Request } from 'express';
import type { AuditContext } from '@mediagen/db';

export const adminTokenAudit = (req: Request): AuditContext => ({ actor: { type: 'admin_token' }, ip: req.ip ?? null });
