// The audit trail: one row per change of who may do what (keys, limits,
// channels, webhooks, operators, sign-ins, top-ups), with actor, target, before/after and address.
// Invariants:
// - A row is written in the caller's transaction (pass the tx): the change and its trace commit or
//   roll back together, so the trail never shows a change that did not happen or misses one that did.
// - No secret is ever stored: before/after go through `auditSnapshot`, which replaces the value
//   (other than a boolean) of any field named like a secret (password, secret, token, hash, key material) by "[redacted]";
//   callers still pass only the fields that matter.
// - Listing is keyset-paged newest first on (createdAt, id) (keyset.ts); the cursor is opaque.
// - Retention deletes in small batches (one short statement each) so it never holds long locks.
import type { PoolClient } from 'pg';
import type { Db } from './client';
import { Prisma } from './generated/client';
import { newId } from './ids';
import { isoOf, Keyset, keysetWhere, pageOf } from './keyset';
import { sql } from './sql';

export type AuditActorType = 'operator' | 'holder' | 'admin_token' | 'system';
export const AUDIT_ACTOR_TYPES: readonly AuditActorType[] = ['operator', 'holder', 'admin_token', 'system'];

export type AuditActor = { type: AuditActorType; id?: string | null; name?: string | null };

export interface AuditInput {
  actor: AuditActor;
  /** Dotted verb: `api_key.create`, `account.limits.update`, `channel.disable`, `operator.login`, ... */
  action: string;
  targetType: string;
  targetId?: string | null;
  /** The customer account concerned, for filtering. */
  accountId?: string | null;
  before?: unknown;
  after?: unknown;
  ip?: string | null;
}

/** Who is acting and from where: what the write functions of packages/db take to audit a change. */
export interface AuditContext {
  actor: AuditActor;
  ip?: string | null;
}

export interface AuditEventRecord {
  id: string;
  /** Exact millisecond ISO text (UTC). */
  createdAt: string;
  actorType: AuditActorType;
  actorId: string | null;
  actorName: string | null;
  action: string;
  targetType: string;
  targetId: string | null;
  accountId: string | null;
  before: unknown;
  after: unknown;
  ip: string | null;
}

export interface AuditFilter {
  actorType?: AuditActorType;
  action?: string;
  accountId?: string;
  targetType?: string;
  targetId?: string;
  /** `nextCursor` of the previous page. */
  cursor?: string;
  limit: number;
}

/** A cursor this module did not hand out (callers answer 400 or start from the first page). */
export class InvalidAuditCursorError extends Error {
  constructor() {
    super('not a cursor from a previous page of the audit trail');
    this.name = 'InvalidAuditCursorError';
  }
}

const SECRET_FIELD = /(password|passwd|secret|token|hash|credential|private|apikey|api_key|keymaterial|^key$|^rawkey$)/i;
const MAX_DEPTH = 6;

/** A JSON copy of `v` with every field named like a secret replaced by "[redacted]". */
export function auditSnapshot(v: unknown, depth = 0): Prisma.InputJsonValue | null {
  if (v === undefined || v === null) return null;
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'bigint') return Number(v);
  if (typeof v !== 'object') return typeof v === 'function' || typeof v === 'symbol' ? null : (v as Prisma.InputJsonValue);
  if (depth >= MAX_DEPTH) return '[truncated]';
  if (Array.isArray(v)) return v.map((x) => auditSnapshot(x, depth + 1)) as Prisma.InputJsonValue;
  const out: Record<string, Prisma.InputJsonValue | null> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (x === undefined) continue;
    // A flag such as `passwordChanged: true` says nothing secret; any other value under such a name goes.
    out[k] = SECRET_FIELD.test(k) && typeof x !== 'boolean' && x !== null ? '[redacted]' : auditSnapshot(x, depth + 1);
  }
  return out as Prisma.InputJsonValue;
}

const jsonOrNull = (v: unknown): Prisma.InputJsonValue | typeof Prisma.DbNull => {
  const s = auditSnapshot(v);
  return s === null ? Prisma.DbNull : s;
};

/** Writes one event in the caller's transaction (pass the tx) or on its own. */
export async function recordAudit(db: Db | Prisma.TransactionClient, e: AuditInput): Promise<void> {
  await db.auditEvent.create({
    data: {
      id: newId(),
      actorType: e.actor.type,
      actorId: e.actor.id ?? null,
      actorName: e.actor.name ?? null,
      action: e.action,
      targetType: e.targetType,
      targetId: e.targetId ?? null,
      accountId: e.accountId ?? null,
      before: jsonOrNull(e.before),
      after: jsonOrNull(e.after),
      ip: e.ip ?? null,
    },
  });
}

/**
 * For a change kept outside Postgres (a channel's disabled flag lives in Redis): the event is
 * written first and `change` runs inside the same transaction, so a change that throws leaves no
 * event. Only a commit failing after `change` succeeded could leave the change untraced.
 */
export async function withAudit<T>(db: Db, e: AuditInput, change: () => Promise<T>): Promise<T> {
  return db.$transaction(async (tx) => {
    await recordAudit(tx, e);
    return change();
  });
}

/** The same, inside a plain-SQL transaction (`sqlTransaction`'s connection). */
export async function recordAuditIn(c: PoolClient, e: AuditInput): Promise<void> {
  const json = (v: unknown) => {
    const s = auditSnapshot(v);
    return s === null ? null : JSON.stringify(s);
  };
  await c.query(
    `INSERT INTO "AuditEvent" ("id", "actorType", "actorId", "actorName", "action", "targetType", "targetId", "accountId", "before", "after", "ip")
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10::jsonb, $11)`,
    [newId(), e.actor.type, e.actor.id ?? null, e.actor.name ?? null, e.action, e.targetType, e.targetId ?? null, e.accountId ?? null, json(e.before), json(e.after), e.ip ?? null],
  );
}

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const encodeAuditCursor = (k: Keyset | null): string | null => (k ? Buffer.from(JSON.stringify(['audit', k.createdAt, k.id])).toString('base64url') : null);

function decodeAuditCursor(raw: string): Keyset {
  try {
    if (raw.length <= 400) {
      const v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as unknown;
      if (Array.isArray(v) && v.length === 3 && v[0] === 'audit' && typeof v[1] === 'string' && ISO_MS.test(v[1]) && !Number.isNaN(Date.parse(v[1])) && typeof v[2] === 'string' && v[2].length > 0 && v[2].length <= 200) {
        return { createdAt: v[1], id: v[2] };
      }
    }
  } catch {
    /* not a cursor */
  }
  throw new InvalidAuditCursorError();
}

/** Events newest first, filtered; throws InvalidAuditCursorError for a cursor it did not issue. */
export async function listAuditEvents(db: Db, f: AuditFilter): Promise<{ events: AuditEventRecord[]; nextCursor: string | null }> {
  const where: string[] = [];
  const values: unknown[] = [];
  const eq = (column: string, v: string | undefined) => {
    if (v === undefined || v === '') return;
    values.push(v);
    where.push(`"${column}" = $${values.length}`);
  };
  eq('actorType', f.actorType);
  eq('action', f.action);
  eq('accountId', f.accountId);
  eq('targetType', f.targetType);
  eq('targetId', f.targetId);
  keysetWhere(where, values, f.cursor === undefined || f.cursor === '' ? undefined : decodeAuditCursor(f.cursor));
  const limit = Math.max(1, Math.min(Math.floor(f.limit), 500));
  values.push(limit + 1);
  const { rows } = await sql<AuditEventRecord>(
    db,
    `SELECT "id", ${isoOf('"createdAt"')} AS "createdAt", "actorType", "actorId", "actorName", "action", "targetType", "targetId", "accountId", "before", "after", "ip"
       FROM "AuditEvent" ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY "AuditEvent"."createdAt" DESC, "AuditEvent"."id" DESC LIMIT $${values.length}`,
    values,
  );
  const page = pageOf(rows, limit);
  return { events: page.rows, nextCursor: encodeAuditCursor(page.next) };
}

/**
 * Retention: deletes up to `batch` events created before `before`, oldest first, and says how many.
 * The job calls it until it returns less than `batch`, so each statement stays short.
 */
export async function deleteAuditEventsBefore(db: Db, before: Date, batch: number): Promise<number> {
  const { rowCount } = await sql(
    db,
    `DELETE FROM "AuditEvent" WHERE "id" IN (
       SELECT "id" FROM "AuditEvent" WHERE "createdAt" < $1::timestamptz ORDER BY "createdAt" ASC LIMIT $2)`,
    [before.toISOString(), Math.max(1, Math.floor(batch))],
  );
  return rowCount;
}
