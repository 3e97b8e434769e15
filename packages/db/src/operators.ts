// Console operators and their sessions (packages/console). Passwords arrive here already hashed;
// session ids are sha256 of the cookie's token, so a leaked table does not open sessions.
import type { Db } from './client';
import { sql } from './sql';
import { AuditContext, recordAudit } from './audit';

export type OperatorRole = 'viewer' | 'admin';

export interface OperatorRecord {
  id: string;
  name: string;
  role: OperatorRole;
  passwordHash: string;
  createdAt: Date;
  disabledAt: Date | null;
}

const OPERATOR_FIELDS = { id: true, name: true, role: true, passwordHash: true, createdAt: true, disabledAt: true } as const;

export async function createOperator(db: Db, op: { id: string; name: string; role: OperatorRole; passwordHash: string }): Promise<void> {
  await db.operator.create({ data: op });
}

/**
 * Sets a new password and role for an existing name (the CLI's `create` on a taken name resets it).
 * Audited as `operator.create` or `operator.update` (role, disabled, whether the password changed;
 * never the hash).
 */
export async function upsertOperator(db: Db, op: { id: string; name: string; role: OperatorRole; passwordHash: string }, audit?: AuditContext): Promise<void> {
  if (!audit) {
    await db.operator.upsert({ where: { name: op.name }, create: op, update: { role: op.role, passwordHash: op.passwordHash, disabledAt: null } });
    return;
  }
  await db.$transaction(async (tx) => {
    const before = await tx.operator.findUnique({ where: { name: op.name }, select: { id: true, role: true, disabledAt: true } });
    const after = await tx.operator.upsert({
      where: { name: op.name },
      create: op,
      update: { role: op.role, passwordHash: op.passwordHash, disabledAt: null },
      select: { id: true, role: true },
    });
    await recordAudit(tx, {
      ...audit,
      action: before ? 'operator.update' : 'operator.create',
      targetType: 'operator',
      targetId: after.id,
      before: before ? { name: op.name, role: before.role, disabled: before.disabledAt !== null } : null,
      after: { name: op.name, role: after.role, disabled: false, passwordChanged: true },
    });
  });
}

export async function findOperatorByName(db: Db, name: string): Promise<OperatorRecord | null> {
  return (await db.operator.findUnique({ where: { name }, select: OPERATOR_FIELDS })) as OperatorRecord | null;
}

export async function listOperators(db: Db): Promise<Omit<OperatorRecord, 'passwordHash'>[]> {
  const rows = await db.operator.findMany({ orderBy: { name: 'asc' }, select: { id: true, name: true, role: true, createdAt: true, disabledAt: true } });
  return rows as Omit<OperatorRecord, 'passwordHash'>[];
}

/** Disables the operator and ends every session of theirs at once. */
export async function disableOperator(db: Db, name: string, audit?: AuditContext): Promise<boolean> {
  const op = await db.operator.findUnique({ where: { name }, select: { id: true, role: true, disabledAt: true } });
  if (!op) return false;
  await db.$transaction(async (tx) => {
    await tx.operator.update({ where: { id: op.id }, data: { disabledAt: new Date() } });
    await tx.operatorSession.deleteMany({ where: { operatorId: op.id } });
    if (audit && !op.disabledAt) {
      await recordAudit(tx, { ...audit, action: 'operator.disable', targetType: 'operator', targetId: op.id, before: { name, role: op.role, disabled: false }, after: { name, role: op.role, disabled: true } });
    }
  });
  return true;
}

export interface SessionRecord {
  id: string;
  csrfToken: string;
  expiresAt: Date;
  operator: { id: string; name: string; role: OperatorRole };
}

export async function createSession(db: Db, s: { id: string; operatorId: string; csrfToken: string; expiresAt: Date }): Promise<void> {
  await db.operatorSession.create({ data: s });
}

/** The live session with this id (expired ones and those of disabled operators are not found). */
export async function findSession(db: Db, id: string, now = new Date()): Promise<SessionRecord | null> {
  const s = await db.operatorSession.findFirst({
    where: { id, expiresAt: { gt: now }, operator: { disabledAt: null } },
    select: { id: true, csrfToken: true, expiresAt: true, operator: { select: { id: true, name: true, role: true } } },
  });
  return s as SessionRecord | null;
}

export async function deleteSession(db: Db, id: string): Promise<void> {
  await db.operatorSession.deleteMany({ where: { id } });
}

/** Housekeeping: expired sessions (they are already refused; this keeps the table small). */
export async function deleteExpiredSessions(db: Db, now = new Date()): Promise<number> {
  const { rowCount } = await sql(db, 'DELETE FROM "OperatorSession" WHERE "expiresAt" <= $1', [now.toISOString()]);
  return rowCount;
}
