// Accounts and their API keys: the admin API's writes and the auth lookup. Every balance change
// still goes through creditAccount (billing.ts), so each one is a ledger entry.
// Writes take an optional AuditContext: the audit event then commits in the same transaction.
import type { Db } from './client';
import { AuditContext, recordAudit } from './audit';

export interface AccountRecord {
  id: string;
  name: string;
  balanceCents: number;
  tasksInProgress: number;
  maxConcurrentTasks: number;
  /** null: the service default (RATE_LIMIT_PER_MINUTE). */
  rateLimitPerMinute: number | null;
  createdAt: Date;
}

export interface AccountLimits {
  name?: string;
  maxConcurrentTasks?: number;
  rateLimitPerMinute?: number | null;
}

const ACCOUNT_FIELDS = {
  id: true,
  name: true,
  balanceCents: true,
  tasksInProgress: true,
  maxConcurrentTasks: true,
  rateLimitPerMinute: true,
  createdAt: true,
} as const;

export async function findAccount(db: Db, id: string): Promise<AccountRecord | null> {
  const a = await db.account.findUnique({ where: { id }, select: ACCOUNT_FIELDS });
  // BIGINT in the database, a JS number here: exact, balances stay <= MAX_BALANCE_CENTS (billing.ts).
  return a && { ...a, balanceCents: Number(a.balanceCents) };
}

/** Creates the account with a zero balance; an initial balance is a top-up through creditAccount. */
export async function createAccount(db: Db, id: string, fields: { name: string } & AccountLimits): Promise<void> {
  await db.account.create({
    data: { id, name: fields.name, maxConcurrentTasks: fields.maxConcurrentTasks, rateLimitPerMinute: fields.rateLimitPerMinute ?? null },
  });
}

const LIMIT_FIELDS = { name: true, maxConcurrentTasks: true, rateLimitPerMinute: true } as const;

export async function updateAccount(db: Db, id: string, fields: AccountLimits, audit?: AuditContext): Promise<void> {
  if (!audit) {
    await db.account.update({ where: { id }, data: fields });
    return;
  }
  await db.$transaction(async (tx) => {
    // The row lock orders concurrent edits, so each event's `before` is what that edit replaced.
    await tx.$queryRaw`SELECT 1 FROM "Account" WHERE "id" = ${id} FOR UPDATE`;
    const before = await tx.account.findUniqueOrThrow({ where: { id }, select: LIMIT_FIELDS });
    const after = await tx.account.update({ where: { id }, data: fields, select: LIMIT_FIELDS });
    const changed = (Object.keys(LIMIT_FIELDS) as (keyof typeof LIMIT_FIELDS)[]).filter((k) => before[k] !== after[k]);
    if (changed.length === 0) return;
    const pick = (o: Record<string, unknown>) => Object.fromEntries(changed.map((k) => [k, o[k]]));
    await recordAudit(tx, { ...audit, action: 'account.limits.update', targetType: 'account', targetId: id, accountId: id, before: pick(before), after: pick(after) });
  });
}

export interface ApiKeyRecord {
  id: string;
  prefix: string;
  createdAt: Date;
  revokedAt: Date | null;
}

export async function createApiKey(db: Db, key: { id: string; accountId: string; keyHash: string; prefix: string }, audit?: AuditContext): Promise<void> {
  if (!audit) {
    await db.apiKey.create({ data: key });
    return;
  }
  await db.$transaction(async (tx) => {
    await tx.apiKey.create({ data: key });
    // The prefix identifies the key to people; the hash and the key itself never go in the trail.
    await recordAudit(tx, { ...audit, action: 'api_key.create', targetType: 'api_key', targetId: key.id, accountId: key.accountId, after: { prefix: key.prefix } });
  });
}

/** The account's keys, newest first. */
export async function listApiKeys(db: Db, accountId: string): Promise<ApiKeyRecord[]> {
  return db.apiKey.findMany({
    where: { accountId },
    orderBy: { createdAt: 'desc' },
    select: { id: true, prefix: true, createdAt: true, revokedAt: true },
  });
}

/**
 * Revokes the key (idempotent). Returns its hash, or null when there is no such key. Only the
 * revocation that sets revokedAt is audited, so a repeated DELETE adds no event.
 */
export async function revokeApiKey(db: Db, id: string, audit?: AuditContext): Promise<{ keyHash: string } | null> {
  return db.$transaction(async (tx) => {
    const key = await tx.apiKey.findUnique({ where: { id }, select: { id: true, accountId: true, prefix: true, keyHash: true } });
    if (!key) return null;
    const { count } = await tx.apiKey.updateMany({ where: { id: key.id, revokedAt: null }, data: { revokedAt: new Date() } });
    if (count === 1 && audit) {
      await recordAudit(tx, { ...audit, action: 'api_key.revoke', targetType: 'api_key', targetId: key.id, accountId: key.accountId, before: { prefix: key.prefix, revoked: false }, after: { prefix: key.prefix, revoked: true } });
    }
    return { keyHash: key.keyHash };
  });
}

export interface ApiKeyOwner {
  apiKeyId: string;
  accountId: string;
  revoked: boolean;
  rateLimitPerMinute: number | null;
}

/** The key with this hash and its account's rate limit (the per-request auth lookup). */
export async function findApiKeyByHash(db: Db, keyHash: string): Promise<ApiKeyOwner | null> {
  const key = await db.apiKey.findUnique({
    where: { keyHash },
    select: { id: true, accountId: true, revokedAt: true, account: { select: { rateLimitPerMinute: true } } },
  });
  if (!key) return null;
  return { apiKeyId: key.id, accountId: key.accountId, revoked: key.revokedAt !== null, rateLimitPerMinute: key.account.rateLimitPerMinute };
}
