// Accounts and their API keys: the admin API's writes and the auth lookup. Every balance change
// still goes through creditAccount (billing.ts), so each one is a ledger entry.
// Writes take an optional AuditContext: the audit event then commits in the same transaction.
import type { Db } from './client';
import { sql, sqlTransaction } from './sql';
import { AuditActor, AuditContext, recordAudit, recordAuditIn } from './audit';

export interface AccountRecord {
  id: string;
  name: string;
  balanceCents: number;
  tasksInProgress: number;
  maxConcurrentTasks: number;
  /** null: the service default (RATE_LIMIT_PER_MINUTE). */
  rateLimitPerMinute: number | null;
  /** null: the service default (RESULT_RETENTION_SECONDS); 0: results kept forever. */
  resultRetentionSeconds: number | null;
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
  resultRetentionSeconds: true,
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
  /** The holder's label; null for keys made by the admin API. */
  name: string | null;
  prefix: string;
  createdAt: Date;
  revokedAt: Date | null;
  /** To about a minute (gateways batch it: touchApiKeys). */
  lastUsedAt: Date | null;
}

export async function createApiKey(db: Db, key: { id: string; accountId: string; keyHash: string; prefix: string; name?: string | null }, audit?: AuditContext): Promise<void> {
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

/** Live keys an account holder may have at once (developer options page). */
export const MAX_LIVE_KEYS_PER_ACCOUNT = 20;

/**
 * Creates the key unless the account already has `max` live ones: the account row is locked first,
 * so two concurrent creates cannot both pass the count. false when over the limit.
 */
export async function createApiKeyWithinLimit(
  db: Db,
  key: { id: string; accountId: string; keyHash: string; prefix: string; name: string | null },
  audit: { actor: AuditActor; ip?: string | null } = { actor: { type: 'system' } },
  max = MAX_LIVE_KEYS_PER_ACCOUNT,
): Promise<boolean> {
  return sqlTransaction(db, async (c) => {
    await c.query('SELECT 1 FROM "Account" WHERE "id" = $1 FOR UPDATE', [key.accountId]);
    const n = await c.query<{ n: number }>('SELECT count(*)::int AS n FROM "ApiKey" WHERE "accountId" = $1 AND "revokedAt" IS NULL', [key.accountId]);
    if (n.rows[0].n >= max) return false;
    await c.query('INSERT INTO "ApiKey" ("id", "accountId", "keyHash", "prefix", "name") VALUES ($1, $2, $3, $4, $5)', [key.id, key.accountId, key.keyHash, key.prefix, key.name]);
    await recordAuditIn(c, { actor: audit.actor, action: 'api_key.create', targetType: 'api_key', targetId: key.id, accountId: key.accountId, after: { name: key.name, prefix: key.prefix }, ip: audit.ip ?? null });
    return true;
  });
}

/** The account's keys, newest first. */
export async function listApiKeys(db: Db, accountId: string): Promise<ApiKeyRecord[]> {
  return db.apiKey.findMany({
    where: { accountId },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    select: { id: true, name: true, prefix: true, createdAt: true, revokedAt: true, lastUsedAt: true },
  });
}

/**
 * Marks keys as used now, at most once a minute each: gateways collect the keys they saw and call
 * this once a minute, so authentication never writes per request.
 */
export async function touchApiKeys(db: Db, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await sql(
    db,
    `UPDATE "ApiKey" SET "lastUsedAt" = now() WHERE "id" = ANY($1::text[]) AND ("lastUsedAt" IS NULL OR "lastUsedAt" < now() - interval '1 minute')`,
    [ids],
  );
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

/**
 * The holder revokes one of their account's keys: ownership, the revocation and its audit event in
 * one transaction. null when the account has no such live key (another account's key included).
 */
export async function revokeHolderApiKey(db: Db, accountId: string, keyId: string, audit: { actor: AuditActor; ip?: string | null }): Promise<{ keyHash: string } | null> {
  return sqlTransaction(db, async (c) => {
    const r = await c.query<{ keyHash: string; name: string | null; prefix: string }>(
      'UPDATE "ApiKey" SET "revokedAt" = now() WHERE "id" = $1 AND "accountId" = $2 AND "revokedAt" IS NULL RETURNING "keyHash", "name", "prefix"',
      [keyId, accountId],
    );
    if (!r.rows[0]) return null;
    await recordAuditIn(c, { actor: audit.actor, action: 'api_key.revoke', targetType: 'api_key', targetId: keyId, accountId, before: { name: r.rows[0].name, prefix: r.rows[0].prefix, revoked: false }, after: { revoked: true }, ip: audit.ip ?? null });
    return { keyHash: r.rows[0].keyHash };
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
    select: { id: true, accountId: true, revokedAt: true, account: { select: { rateLimitPerMinute: true, disabledAt: true } } },
  });
  if (!key) return null;
  // A disabled account's keys answer as revoked until an operator enables it again.
  const revoked = key.revokedAt !== null || key.account.disabledAt !== null;
  return { apiKeyId: key.id, accountId: key.accountId, revoked, rateLimitPerMinute: key.account.rateLimitPerMinute };
}
