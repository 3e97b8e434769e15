// Development only: an account with credit and a fixed, well-known API key, so the README's
// first request works as pasted. Refused when NODE_ENV=production.
import '@mediagen/runtime/node-version'; // first: one readable line on a Node older than 24.11
import { createHash } from 'node:crypto';
import { createDb, creditAccount } from '@mediagen/db';

export { DEV_API_KEY } from '../apps/gateway/src/services/api-keys';
import { DEV_API_KEY, DEV_API_KEY_ID } from '../apps/gateway/src/services/api-keys';
const DEV_ACCOUNT = 'acc_dev';
const DEV_KEY_ID = DEV_API_KEY_ID;

export async function bootstrapDevAccount(databaseUrl: string): Promise<{ apiKey: string; balanceCents: number }> {
  if (process.env.NODE_ENV === 'production') throw new Error('dev bootstrap refused in production');
  const db = createDb(databaseUrl, { poolSize: 2 });
  try {
    const existing = await db.account.findUnique({ where: { id: DEV_ACCOUNT } });
    if (!existing) {
      await db.account.create({ data: { id: DEV_ACCOUNT, name: 'Local development' } });
      await creditAccount(db, DEV_ACCOUNT, 10_000, 'development credit');
    }
    const keyHash = createHash('sha256').update(DEV_API_KEY).digest('hex');
    await db.apiKey.upsert({
      where: { id: DEV_KEY_ID },
      create: { id: DEV_KEY_ID, accountId: DEV_ACCOUNT, keyHash, prefix: DEV_API_KEY.slice(0, 9) },
      update: {},
    });
    const acc = await db.account.findUniqueOrThrow({ where: { id: DEV_ACCOUNT } });
    return { apiKey: DEV_API_KEY, balanceCents: Number(acc.balanceCents) };
  } finally {
    await db.$disconnect();
  }
}
