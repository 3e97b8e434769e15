// Small reads and writes the gateway, the console and the worker need around their main queries:
// does a row exist, what an account may start, the development key's revocation, the inline files
// of settled tasks, a liveness ping. Each takes only the part of the client it uses (`Pick<Db, ...>`,
// as trigger.dev's database package does), so a caller holding a narrower view can still call it
// and a test can pass a stub of one delegate.
import { SETTLED_TASK_STATUSES } from '@mediagen/catalog';
import type { Db } from './client';

/** Whether the account exists. */
export async function accountExists(db: Pick<Db, 'account'>, id: string): Promise<boolean> {
  return (await db.account.findUnique({ where: { id }, select: { id: true } })) !== null;
}

/** What the submit path checks before it fetches reference media: balance and in-progress slots. */
export interface AccountAdmission {
  /** Cents; BIGINT in the database, exact as a JS number (see MAX_BALANCE_CENTS). */
  balanceCents: number;
  tasksInProgress: number;
  maxConcurrentTasks: number;
}

export async function findAccountAdmission(db: Pick<Db, 'account'>, id: string): Promise<AccountAdmission | null> {
  const a = await db.account.findUnique({ where: { id }, select: { balanceCents: true, tasksInProgress: true, maxConcurrentTasks: true } });
  return a && { balanceCents: Number(a.balanceCents), tasksInProgress: a.tasksInProgress, maxConcurrentTasks: a.maxConcurrentTasks };
}

/** Revokes every live key with this hash (the public development key); answers how many. */
export async function revokeKeysByHash(db: Pick<Db, 'apiKey'>, keyHash: string): Promise<number> {
  const r = await db.apiKey.updateMany({ where: { keyHash, revokedAt: null }, data: { revokedAt: new Date() } });
  return r.count;
}

/** A webhook endpoint as the deliveries pages show it (deleted ones included: their history stays readable). */
export interface EndpointSummary {
  id: string;
  accountId: string;
  /** Null once the endpoint is deleted (the row stays for its deliveries). */
  url: string | null;
  events: string[];
  createdAt: Date;
}

export async function findEndpointSummary(db: Pick<Db, 'webhookEndpoint'>, id: string): Promise<EndpointSummary | null> {
  return db.webhookEndpoint.findUnique({ where: { id }, select: { id: true, accountId: true, url: true, events: true, createdAt: true } });
}

/** A stored inline reference file of a task that has settled: nothing needs it any more. */
export interface SettledInputFile {
  id: string;
  storageKey: string;
}

export async function settledInputFiles(db: Pick<Db, 'inlineFile'>, limit: number): Promise<SettledInputFile[]> {
  return db.inlineFile.findMany({
    where: { task: { status: { in: [...SETTLED_TASK_STATUSES] } } },
    select: { id: true, storageKey: true },
    take: limit,
  });
}

/** Deletes inline file rows (after their stored files are gone). */
export async function deleteInlineFiles(db: Pick<Db, 'inlineFile'>, ids: string[]): Promise<number> {
  return (await db.inlineFile.deleteMany({ where: { id: { in: ids } } })).count;
}

/** One round trip to the database (readiness and health checks). */
export async function pingDb(db: Pick<Db, '$queryRaw'>): Promise<void> {
  await db.$queryRaw`SELECT 1`;
}
