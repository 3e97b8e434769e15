// Console operators through the admin API (behind ADMIN_TOKEN): create (or reset the password and
// role of) a named operator, list them, disable one. A reset, a role change and a disable end the
// operator's sessions in the same transaction (packages/db operators.ts). The password is hashed
// with scrypt before it is stored, and never returned.
import express, { Router } from 'express';
import { z } from 'zod';
import { AppError } from '@mediagen/errors';
import { disableOperator, listOperators, newId, upsertOperator } from '@mediagen/db';
import { hashPassword, MIN_PASSWORD_LENGTH, PasswordHashingBusy } from '@mediagen/console';
import type { GatewayDeps } from '../deps';
import { parseAdminBody } from '../services/admin-validation';
import { adminTokenAudit } from '../services/audit-actor';

export const operatorSchema = z.strictObject({
  name: z.string().trim().regex(/^[A-Za-z0-9._@-]{2,100}$/, 'letters, digits, . _ @ -'),
  role: z.enum(['viewer', 'admin']),
  password: z.string().min(MIN_PASSWORD_LENGTH).max(200),
});

export function adminOperatorsRouter(deps: GatewayDeps): Router {
  const r = Router();
  r.use('/operators', express.json({ limit: '10kb' }));
  r.post('/operators', async (req, res) => {
    const b = parseAdminBody(operatorSchema, req.body);
    // Hashing waits its turn at the process's gate with the sign-ins (packages/console passwords.ts).
    const passwordHash = await hashPassword(b.password).catch((e: unknown) => {
      if (e instanceof PasswordHashingBusy) throw new AppError('rate_limited', e.message, undefined, undefined, { 'Retry-After': String(e.retryAfterS) });
      throw e;
    });
    await upsertOperator(deps.db, { id: newId('op'), name: b.name, role: b.role, passwordHash }, adminTokenAudit(req));
    res.status(201).json({ name: b.name, role: b.role });
  });
  r.get('/operators', async (_req, res) => {
    const ops = await listOperators(deps.db);
    res.json({ operators: ops.map((o) => ({ name: o.name, role: o.role, createdAt: o.createdAt.toISOString(), disabledAt: o.disabledAt?.toISOString() ?? null })) });
  });
  r.delete('/operators/:name', async (req, res) => {
    if (!(await disableOperator(deps.db, req.params.name, adminTokenAudit(req)))) throw new AppError('not_found', `Operator ${req.params.name} not found`);
    res.status(204).end();
  });
  return r;
}
