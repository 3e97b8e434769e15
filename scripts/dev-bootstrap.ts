// Development only: an account with credit and a fixed, well-known API key, so the README's
// first request works as pasted, and a console operator `dev` whose password is made once per
// DATA_DIR (kept in DATA_DIR/dev-operator.password, mode 0600), so the console from the READY line
// can be signed in to. Refused when NODE_ENV=production.
//
// The READY line never prints a key or password that does not work: a production start against
// this database revokes the public key (apps/gateway dev-key.ts), and an operator may have been
// disabled or given another password since; each development start puts them back as printed.
import '@mediagen/runtime/node-version'; // first: one readable line on a Node older than 24.11
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createDb, creditAccount, findOperatorByName, newId, upsertOperator } from '@mediagen/db';
import { hashPassword, verifyPassword } from '@mediagen/console';

export { DEV_API_KEY } from '../apps/gateway/src/services/api-keys';
import { DEV_API_KEY, DEV_API_KEY_ID } from '../apps/gateway/src/services/api-keys';
const DEV_ACCOUNT = 'acc_dev';
const DEV_KEY_ID = DEV_API_KEY_ID;
export const DEV_OPERATOR = 'dev';

export interface DevBootstrap {
  apiKey: string;
  balanceCents: number;
  /** The key had been revoked (a production start against this database) and was made valid again. */
  keyReactivated: boolean;
  operator: { name: string; password: string; reset: boolean };
}

export async function bootstrapDevAccount(databaseUrl: string, dataDir: string): Promise<DevBootstrap> {
  if (process.env.NODE_ENV === 'production') throw new Error('dev bootstrap refused in production');
  const db = createDb(databaseUrl, { poolSize: 2 });
  try {
    const existing = await db.account.findUnique({ where: { id: DEV_ACCOUNT } });
    if (!existing) {
      await db.account.create({ data: { id: DEV_ACCOUNT, name: 'Local development' } });
      await creditAccount(db, DEV_ACCOUNT, 10_000, 'development credit');
    }
    const keyHash = createHash('sha256').update(DEV_API_KEY).digest('hex');
    const before = await db.apiKey.findUnique({ where: { id: DEV_KEY_ID }, select: { revokedAt: true } });
    await db.apiKey.upsert({
      where: { id: DEV_KEY_ID },
      create: { id: DEV_KEY_ID, accountId: DEV_ACCOUNT, keyHash, prefix: DEV_API_KEY.slice(0, 9) },
      update: { revokedAt: null, keyHash, accountId: DEV_ACCOUNT },
    });
    const acc = await db.account.findUniqueOrThrow({ where: { id: DEV_ACCOUNT } });
    return {
      apiKey: DEV_API_KEY,
      balanceCents: Number(acc.balanceCents),
      keyReactivated: !!before?.revokedAt,
      operator: await devOperator(db, dataDir),
    };
  } finally {
    await db.$disconnect();
  }
}

/** The `dev` admin operator with the password kept in DATA_DIR; (re)set when it would not sign in. */
async function devOperator(db: ReturnType<typeof createDb>, dataDir: string): Promise<DevBootstrap['operator']> {
  const file = path.resolve(dataDir, 'dev-operator.password');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  if (!fs.existsSync(file)) fs.writeFileSync(file, randomBytes(15).toString('base64url'), { mode: 0o600 });
  const password = fs.readFileSync(file, 'utf8').trim();
  const op = await findOperatorByName(db, DEV_OPERATOR);
  const works = !!op && !op.disabledAt && op.role === 'admin' && (await verifyPassword(password, op.passwordHash));
  // Only when it would not sign in: a reset ends the operator's sessions (upsertOperator).
  if (!works) await upsertOperator(db, { id: newId('op'), name: DEV_OPERATOR, role: 'admin', passwordHash: await hashPassword(password) });
  return { name: DEV_OPERATOR, password, reset: !!op && !works };
}
