// Issuing and revoking API keys, shared by the admin API and the console so both use one key
// format and one revocation path (every gateway evicts its auth cache entry at once).
import { AuditContext, createApiKey, newId, revokeApiKey } from '@mediagen/db';
import { pubsubChannel } from '@mediagen/queue';
import type { GatewayDeps } from '../deps';
import { generateApiKey } from './api-keys';

export async function issueApiKey(deps: Pick<GatewayDeps, 'db'>, accountId: string, audit?: AuditContext): Promise<{ id: string; key: string; prefix: string }> {
  const k = generateApiKey();
  const id = newId('key');
  await createApiKey(deps.db, { id, accountId, keyHash: k.hash, prefix: k.prefix }, audit);
  return { id, key: k.key, prefix: k.prefix };
}

/** false when there is no such key; revoking twice is fine. */
export async function revokeKeyEverywhere(deps: Pick<GatewayDeps, 'db' | 'redis' | 'config'>, keyId: string, audit?: AuditContext): Promise<boolean> {
  const key = await revokeApiKey(deps.db, keyId, audit);
  if (!key) return false;
  await deps.redis.publish(pubsubChannel(deps.config.REDIS_PREFIX, 'keyRevoked'), key.keyHash).catch(() => undefined);
  return true;
}
