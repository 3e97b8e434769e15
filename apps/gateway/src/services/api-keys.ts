// API keys: 256 random bits, shown once, stored as sha256. A fast hash is enough for keys of
// that entropy (no dictionary to try), and it keeps the per-request lookup an index hit.
import { createHash, randomBytes } from 'node:crypto';

const KEY_PREFIX = 'mg_';

export function generateApiKey(): { key: string; hash: string; prefix: string } {
  const key = `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  return { key, hash: hashApiKey(key), prefix: key.slice(0, KEY_PREFIX.length + 6) };
}

export const hashApiKey = (key: string): string => createHash('sha256').update(key).digest('hex');

/** Cheap shape check before any lookup, so junk never reaches the database. */
export const looksLikeApiKey = (s: string): boolean => /^[A-Za-z0-9_\-.~+/=]{8,200}$/.test(s);

/**
 * The well-known key `npm start` creates for local development (scripts/dev-bootstrap.ts). Its
 * text is public, so a database that once ran in development must never accept it in production:
 * production refuses it at authentication and revokes it at start-up.
 */
export const DEV_API_KEY = 'mg_dev_local_only_key_do_not_use_in_production';
export const DEV_API_KEY_ID = 'key_dev';
export const DEV_API_KEY_HASH = hashApiKey(DEV_API_KEY);
