// Account holders (the people who sign up at /account), their sessions and their emailed single-use
// tokens. A sign-up creates the account, its holder and the opening balance in one transaction.
// Tokens and session ids arrive already hashed (sha256 of the secret in the link or cookie), so a
// leaked table opens nothing.
import type { Db } from './client';
import { newId } from './ids';
import { isoOf, Keyset, pageOf } from './keyset';
import { sql, sqlTransaction } from './sql';
import { creditInTransaction } from './billing';
import { AuditActor, recordAudit, recordAuditIn } from './audit';

export interface HolderRecord {
  id: string;
  accountId: string;
  email: string;
  passwordHash: string;
  emailVerifiedAt: Date | null;
  createdAt: Date;
  /** The account's disabledAt: a disabled holder signs in to nothing. */
  disabledAt: Date | null;
}

type HolderRow = Omit<HolderRecord, 'disabledAt'> & { account: { disabledAt: Date | null } };
const HOLDER_FIELDS = { id: true, accountId: true, email: true, passwordHash: true, emailVerifiedAt: true, createdAt: true, account: { select: { disabledAt: true } } } as const;
const holderOf = (h: HolderRow | null): HolderRecord | null => h && { id: h.id, accountId: h.accountId, email: h.email, passwordHash: h.passwordHash, emailVerifiedAt: h.emailVerifiedAt, createdAt: h.createdAt, disabledAt: h.account.disabledAt };

export type SignupOutcome = { holderId: string; accountId: string } | { taken: true };

/**
 * The account (named by its email), its holder and the opening balance (a ledger top-up) commit
 * together. A taken email is an answer, not an error (the unique index decides, race-free).
 */
export async function createHolderWithAccount(db: Db, h: { email: string; passwordHash: string; openingBalanceCents: number; ip?: string | null }): Promise<SignupOutcome> {
  const accountId = newId('acc');
  const holderId = newId('hol');
  return sqlTransaction(db, async (c) => {
    await c.query('INSERT INTO "Account" ("id", "name") VALUES ($1, $2)', [accountId, h.email]);
    const ins = await c.query(
      'INSERT INTO "AccountHolder" ("id", "accountId", "email", "passwordHash") VALUES ($1, $2, $3, $4) ON CONFLICT ("email") DO NOTHING',
      [holderId, accountId, h.email, h.passwordHash],
    );
    // Thrown, so the account row rolls back with it.
    if (ins.rowCount !== 1) throw new EmailTaken();
    if (h.openingBalanceCents > 0) {
      const out = await creditInTransaction(c, accountId, h.openingBalanceCents, 'opening balance (sign-up)', 'signup');
      if ('refused' in out) throw new Error(`opening balance refused: ${out.refused}`);
    }
    await recordAuditIn(c, {
      actor: { type: 'holder', id: holderId, name: h.email }, action: 'holder.signup', targetType: 'holder', targetId: holderId, accountId,
      after: { email: h.email, openingBalanceCents: h.openingBalanceCents }, ip: h.ip ?? null,
    });
    return { holderId, accountId };
  }).catch((e: unknown) => {
    if (e instanceof EmailTaken) return { taken: true as const };
    throw e;
  });
}

class EmailTaken extends Error {}

export async function findHolderByEmail(db: Db, email: string): Promise<HolderRecord | null> {
  return holderOf(await db.accountHolder.findUnique({ where: { email }, select: HOLDER_FIELDS }));
}

export async function findHolder(db: Db, id: string): Promise<HolderRecord | null> {
  return holderOf(await db.accountHolder.findUnique({ where: { id }, select: HOLDER_FIELDS }));
}

export type HolderTokenPurpose = 'verify' | 'reset' | 'invite';

export async function createHolderToken(db: Db, t: { id: string; purpose: HolderTokenPurpose; holderId: string | null; createdBy?: string | null; expiresAt: Date }): Promise<void> {
  await db.holderToken.create({ data: { id: t.id, purpose: t.purpose, holderId: t.holderId, createdBy: t.createdBy ?? null, expiresAt: t.expiresAt } });
}

/** A live (unused, unexpired) token of this purpose, without using it (the reset form shows it first). */
export async function peekHolderToken(db: Db, id: string, purpose: HolderTokenPurpose): Promise<{ holderId: string | null } | null> {
  const t = await db.holderToken.findFirst({ where: { id, purpose, usedAt: null, expiresAt: { gt: new Date() } }, select: { holderId: true } });
  return t;
}

/**
 * Uses the token once: one compare-and-set on usedAt, so two clicks on the same link (or two tabs)
 * cannot both pass. Returns its holder (null for an invite), or undefined when it is unknown,
 * used or expired.
 */
export async function useHolderToken(db: Db, id: string, purpose: HolderTokenPurpose): Promise<{ holderId: string | null } | undefined> {
  const { rows } = await sql<{ holderId: string | null }>(
    db,
    `UPDATE "HolderToken" SET "usedAt" = now() WHERE "id" = $1 AND "purpose" = $2 AND "usedAt" IS NULL AND "expiresAt" > now() RETURNING "holderId"`,
    [id, purpose],
  );
  return rows[0];
}

/** Marks the address verified (once: a second call changes and records nothing). */
export async function markEmailVerified(db: Db, holderId: string, ip: string | null = null): Promise<void> {
  await db.$transaction(async (tx) => {
    const h = await tx.accountHolder.updateManyAndReturn({ where: { id: holderId, emailVerifiedAt: null }, data: { emailVerifiedAt: new Date() }, select: { accountId: true, email: true } });
    if (h[0]) await recordAudit(tx, { actor: { type: 'holder', id: holderId, name: h[0].email }, action: 'holder.verify_email', targetType: 'holder', targetId: holderId, accountId: h[0].accountId, after: { emailVerified: true }, ip });
  });
}

/** New password; every session of the holder ends and every other reset link dies with it. */
export async function setHolderPassword(db: Db, holderId: string, passwordHash: string, ip: string | null = null): Promise<void> {
  await db.$transaction(async (tx) => {
    const h = await tx.accountHolder.update({ where: { id: holderId }, data: { passwordHash }, select: { accountId: true, email: true } });
    const ended = await tx.holderSession.deleteMany({ where: { holderId } });
    await tx.holderToken.updateMany({ where: { holderId, purpose: 'reset', usedAt: null }, data: { usedAt: new Date() } });
    await recordAudit(tx, { actor: { type: 'holder', id: holderId, name: h.email }, action: 'holder.password_reset', targetType: 'holder', targetId: holderId, accountId: h.accountId, after: { sessionsEnded: ended.count }, ip });
  });
}

export interface HolderSessionRecord {
  id: string;
  csrfToken: string;
  expiresAt: Date;
  holder: { id: string; accountId: string; email: string };
}

export async function createHolderSession(db: Db, s: { id: string; holderId: string; csrfToken: string; expiresAt: Date }): Promise<void> {
  await db.holderSession.create({ data: s });
}

/** The live session with this id; sessions of a disabled account are not found. */
export async function findHolderSession(db: Db, id: string, now = new Date()): Promise<HolderSessionRecord | null> {
  const s = await db.holderSession.findFirst({
    where: { id, expiresAt: { gt: now }, holder: { account: { disabledAt: null } } },
    select: { id: true, csrfToken: true, expiresAt: true, holder: { select: { id: true, accountId: true, email: true } } },
  });
  return s;
}

export async function deleteHolderSession(db: Db, id: string): Promise<void> {
  await db.holderSession.deleteMany({ where: { id } });
}

export interface HolderListRow {
  id: string;
  accountId: string;
  email: string;
  emailVerifiedAt: string | null;
  createdAt: string;
  disabledAt: string | null;
  balanceCents: number;
}

/** Holders newest first for the console, optionally those whose email contains `search`. */
export async function listHolders(db: Db, f: { search?: string; before?: Keyset; limit: number }): Promise<{ rows: HolderListRow[]; next: Keyset | null }> {
  const where: string[] = [];
  const values: unknown[] = [];
  if (f.search) {
    values.push(`%${f.search.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`);
    where.push(`h."email" ILIKE $${values.length}`);
  }
  if (f.before) {
    values.push(f.before.createdAt, f.before.id);
    where.push(`(h."createdAt", h."id") < ($${values.length - 1}::timestamptz, $${values.length}::text)`);
  }
  values.push(f.limit + 1);
  const { rows } = await sql<HolderListRow>(
    db,
    `SELECT h."id", h."accountId", h."email", ${isoOf('h."emailVerifiedAt"')} AS "emailVerifiedAt", ${isoOf('h."createdAt"')} AS "createdAt",
            ${isoOf('a."disabledAt"')} AS "disabledAt", a."balanceCents"
       FROM "AccountHolder" h JOIN "Account" a ON a."id" = h."accountId"
       ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY h."createdAt" DESC, h."id" DESC LIMIT $${values.length}`,
    values,
  );
  return pageOf(rows.map((r) => ({ ...r, balanceCents: Number(r.balanceCents) })), f.limit);
}

/**
 * Disables (or enables) the account: its holder's sessions are deleted in the same transaction, and
 * the key hashes are returned so the caller evicts them from every gateway's auth cache at once.
 * null for an unknown account; `changed` false when it already was in that state.
 */
export async function setAccountDisabled(
  db: Db,
  accountId: string,
  disabled: boolean,
  actor: AuditActor = { type: 'system' },
  ip: string | null = null,
): Promise<{ changed: boolean; keyHashes: string[] } | null> {
  return sqlTransaction(db, async (c) => {
    const cur = await c.query<{ disabledAt: Date | null }>('SELECT "disabledAt" FROM "Account" WHERE "id" = $1 FOR UPDATE', [accountId]);
    if (cur.rows.length === 0) return null;
    if ((cur.rows[0].disabledAt !== null) === disabled) return { changed: false, keyHashes: [] };
    await c.query(`UPDATE "Account" SET "disabledAt" = ${disabled ? 'now()' : 'NULL'} WHERE "id" = $1`, [accountId]);
    if (disabled) await c.query('DELETE FROM "HolderSession" WHERE "holderId" IN (SELECT "id" FROM "AccountHolder" WHERE "accountId" = $1)', [accountId]);
    await recordAuditIn(c, { actor, action: disabled ? 'holder.disable' : 'holder.enable', targetType: 'account', targetId: accountId, accountId, before: { disabled: !disabled }, after: { disabled }, ip });
    const keys = await c.query<{ keyHash: string }>('SELECT "keyHash" FROM "ApiKey" WHERE "accountId" = $1 AND "revokedAt" IS NULL', [accountId]);
    return { changed: true, keyHashes: keys.rows.map((k) => k.keyHash) };
  });
}

/**
 * Housekeeping of the expire-sessions job: holder sessions past their expiry (already refused), and
 * emailed links and invites a day past their expiry or use (kept that long so a late click still
 * says "used or expired" rather than "wrong"). Returns how many of each were deleted.
 */
export async function deleteExpiredHolderRows(db: Db, now = new Date()): Promise<{ sessions: number; links: number }> {
  const s = await sql(db, 'DELETE FROM "HolderSession" WHERE "expiresAt" <= $1', [now.toISOString()]);
  const l = await sql(db, `DELETE FROM "HolderToken" WHERE COALESCE("usedAt", "expiresAt") <= $1::timestamptz - interval '1 day' OR "expiresAt" <= $1::timestamptz - interval '1 day'`, [
    now.toISOString(),
  ]);
  return { sessions: s.rowCount, links: l.rowCount };
}
