// Console operators and their sessions (packages/console). Passwords arrive here already hashed;
// session ids are sha256 of the cookie's token, so a leaked table does not open sessions.
import type { Db } from './client';
import { sql } from './sql';
import { AuditContext, AuditInput, recordAudit } from './audit';

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
* Sets a new password and role for an existing name (the CLI's `create` on a taken name resets it),
 * and ends every session of that operator in the same transaction: a session opened with the old
 * password, or holding the old role, must not outlive the change. With `audit`, the change is
 * recorded in the same transaction as `operator.create` or `operator.update` (role, disabled,
 * whether the password changed; never the hash).
 */
export async function upsertOperator(
  db: Db,
  op: { id: string; name: string; role: OperatorRole; passwordHash: string },
  audit?: AuditContext,
): Promise<{ id: string; previousRole: OperatorRole | null; sessionsEnded: number }> {
  return db.$transaction(async (tx) => {
    // FOR UPDATE: two resets of one name serialise, so neither's session delete misses the other's.
    const before = await tx.$queryRaw<{ id: string; role: OperatorRole; disabled: boolean }[]>`
      SELECT "id", "role", ("disabledAt" IS NOT NULL) AS "disabled" FROM "Operator" WHERE "name" = ${op.name} FOR UPDATE`;
    const row = await tx.operator.upsert({
      where: { name: op.name },
      create: op,
      update: { role: op.role, passwordHash: op.passwordHash, disabledAt: null },
      select: { id: true },
    });
    const { count } = await tx.operatorSession.deleteMany({ where: { operatorId: row.id } });
    const prev = before[0];
    if (audit) {
      await recordAudit(tx, {
        ...audit,
        action: prev ? 'operator.update' : 'operator.create',
        targetType: 'operator',
        targetId: row.id,
        before: prev ? { name: op.name, role: prev.role, disabled: prev.disabled } : null,
        after: { name: op.name, role: op.role, disabled: false, passwordChanged: true, sessionsEnded: count },
      });
    }
    return { id: row.id, previousRole: prev?.role ?? null, sessionsEnded: count };
  });
}

export async function findOperatorByName(db: Db, name: string): Promise<OperatorRecord | null> {
  return (await db.operator.findUnique({ where: { name }, select: OPERATOR_FIELDS })) as OperatorRecord | null;
}

export async function listOperators(db: Db): Promise<Omit<OperatorRecord, 'passwordHash'>[]> {
  const rows = await db.operator.findMany({ orderBy: { name: 'asc' }, select: { id: true, name: true, role: true, createdAt: true, disabledAt: true } });
  return rows as Omit<OperatorRecord, 'passwordHash'>[];
}

/** Disables the operator and ends every session of theirs in the same transaction (audited with `audit`). */
export async function disableOperator(db: Db, name: string, audit?: AuditContext): Promise<boolean> {
  return db.$transaction(async (tx) => {
    const op = (await tx.$queryRaw<{ id: string; role: OperatorRole; disabled: boolean }[]>`
      SELECT "id", "role", ("disabledAt" IS NOT NULL) AS "disabled" FROM "Operator" WHERE "name" = ${name} FOR UPDATE`)[0];
    if (!op) return false;
    await tx.operator.update({ where: { id: op.id }, data: { disabledAt: new Date() } });
    const { count } = await tx.operatorSession.deleteMany({ where: { operatorId: op.id } });
    if (audit && !op.disabled) {
      await recordAudit(tx, { ...audit, action: 'operator.disable', targetType: 'operator', targetId: op.id, before: { name, role: op.role, disabled: false }, after: { name, role: op.role, disabled: true, sessionsEnded: count } });
    }
    return true;
  });
}

export interface SessionRecord {
  id: string;
  csrfToken: string;
  expiresAt: Date;
  operator: { id: string; name: string; role: OperatorRole };
}

/** Creates a session; with `audit`, its audit event (the sign-in) is written in the same transaction. */
export async function createSession(db: Db, s: { id: string; operatorId: string; csrfToken: string; expiresAt: Date }, audit?: AuditInput): Promise<void> {
  if (!audit) {
    await db.operatorSession.create({ data: s });
    return;
  }
  await db.$transaction(async (tx) => {
    await tx.operatorSession.create({ data: s });
    await recordAudit(tx, audit);
  });
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
