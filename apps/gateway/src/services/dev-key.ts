// The development key's text is public (README, scripts/dev-bootstrap.ts). A database that once
// served `npm start` and is later run in production must not keep it valid: a production gateway
// revokes it at start (and auth.ts refuses it regardless).
import { revokeKeysByHash, type Db } from '@mediagen/db';
import { DEV_API_KEY_HASH } from './api-keys';

export async function revokeDevelopmentKey(db: Db): Promise<number> {
  return revokeKeysByHash(db, DEV_API_KEY_HASH);
}
