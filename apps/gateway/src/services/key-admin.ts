// Issuing and revoking API keys, shared by the admin API and the console so both use one key
// format and one revocation path (every gateway evicts its auth cache entry at once).
import { AuditActor, AuditContext, createApiKey, createApiKeyWithinLimit, newId, revokeApiKey, revokeHolderApiKey, setAccountDisabled } from '@mediagen/db';
import { pubsubChannel } from '@mediagen/queue';
import type { GatewayDeps } from '../deps';
import { generateApiKey } from './api-keys';

export async function issueApiKey(deps: Pick<GatewayDeps, 'db'>, accountId: string, audit?: AuditContext): Promise<{ id: string; key: string; prefix: string }> {
  const k = generateApiKey();
  const id = newId('key');
  await createApiKey(deps.db, { id, accountId, keyHash: k.hash, prefix: k.prefix }, audit);
  return { id, key: k.key, prefix: k.prefix };
}

/** A named key made by the account holder, unless the account has its 20 live keys (null then). */
export async function issueNamedApiKey(
  deps: Pick<GatewayDeps, 'db'>,
  accountId: string,
  name: string,
  audit?: { actor: AuditActor; ip?: string | null },
): Promise<{ id: string; key: string; prefix: string } | null> {
  const k = generateApiKey();
  const id = newId('key');
  if (!(await createApiKeyWithinLimit(deps.db, { id, accountId, keyHash: k.hash, prefix: k.prefix, name }, audit))) return null;
  return { id, key: k.key, prefix: k.prefix };
}

/**
 * Disables or enables an account (console, Holders): its holder's sessions end in the same
 * transaction, and every gateway drops its cached entries of the account's keys at once, so the
 * next API call with any of them answers 401. null for an unknown account.
 */
export async function setAccountDisabledEverywhere(
  deps: Pick<GatewayDeps, 'db' | 'redis' | 'config'>,
  accountId: string,
  disabled: boolean,
  actor?: AuditActor,
  ip?: string | null,
): Promise<boolean | null> {
  const out = await setAccountDisabled(deps.db, accountId, disabled, actor, ip ?? null);
  if (!out) return null;
  const channel = pubsubChannel(deps.config.REDIS_PREFIX, 'keyRevoked');
  await Promise.all(out.keyHashes.map((h) => deps.redis.publish(channel, h).catch(() => undefined)));
  return out.changed;
}

/** false when there is no such key; revoking twice is fine. */
export async function revokeKeyEverywhere(deps: Pick<GatewayDeps, 'db' | 'redis' | 'config'>, keyId: string, audit?: AuditContext): Promise<boolean> {
  const key = await revokeApiKey(deps.db, keyId, audit);
  if (!key) return false;
  await deps.redis.publish(pubsubChannel(deps.config.REDIS_PREFIX, 'keyRevoked'), key.keyHash).catch(() => undefined);
  return true;
}

/** The holder revokes their own key (audited in the same transaction); false when the account has no such live key. */
export async function revokeHolderKeyEverywhere(
  deps: Pick<GatewayDeps, 'db' | 'redis' | 'config'>,
  accountId: string,
  keyId: string,
  audit: { actor: AuditActor; ip?: string | null },
): Promise<boolean> {
  const key = await revokeHolderApiKey(deps.db, accountId, keyId, audit);
  if (!key) return false;
  await deps.redis.publish(pubsubChannel(deps.config.REDIS_PREFIX, 'keyRevoked'), key.keyHash).catch(() => undefined);
  return true;
}
