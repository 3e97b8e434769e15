// Accounts and their API keys: the admin API's writes and the auth lookup. Every balance change
// still goes through creditAccount (billing.ts), so each one is a ledger entry.
import type { Db } from './client';

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

export async function updateAccount(db: Db, id: string, fields: AccountLimits): Promise<void> {
  await db.account.update({ where: { id }, data: fields });
}

export interface ApiKeyRecord {
  id: string;
  prefix: string;
  createdAt: Date;
  revokedAt: Date | null;
}

export async function createApiKey(db: Db, key: { id: string; accountId: string; keyHash: string; prefix: string }): Promise<void> {
  await db.apiKey.create({ data: key });
}

/** The account's keys, newest first. */
export async function listApiKeys(db: Db, accountId: string): Promise<ApiKeyRecord[]> {
  return db.apiKey.findMany({
    where: { accountId },
    orderBy: { createdAt: 'desc' },
    select: { id: true, prefix: true, createdAt: true, revokedAt: true },
  });
}

/** Revokes the key (idempotent). Returns its hash, or null when there is no such key. */
export async function revokeApiKey(db: Db, id: string): Promise<{ keyHash: string } | null> {
  const key = await db.apiKey.findUnique({ where: { id }, select: { id: true, keyHash: true, revokedAt: true } });
  if (!key) return null;
  if (!key.revokedAt) await db.apiKey.update({ where: { id: key.id }, data: { revokedAt: new Date() } });
  return { keyHash: key.keyHash };
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
