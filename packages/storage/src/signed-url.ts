// Inline reference files (a customer's photo, voice clip) are private inputs. They
// live under unguessable keys (`inputs/<128 random bits>/<i>.<ext>`, no task id in them) and
// /files serves them only with a signature that expires: the URL handed to the provider. Anyone
// shown a result URL (which carries the task id) learns nothing that reaches the inputs.
// HMAC-SHA256 over the key and the expiry; compared in constant time.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Config } from '@mediagen/config';
import { publicFileUrl } from './public-url';

export const INPUTS_PREFIX = 'inputs/';

/** A fresh, unguessable folder for one submit's inline files. */
export const newInputKey = (index: number, ext: string): string => `${INPUTS_PREFIX}${randomBytes(16).toString('hex')}/${index}.${ext}`;

export const isPrivateKey = (key: string): boolean => key.startsWith(INPUTS_PREFIX);

const signature = (secret: string, key: string, exp: number): string =>
  createHmac('sha256', secret).update(`${key}\n${exp}`).digest('base64url');

/** `/files/<key>?exp=<unix seconds>&sig=<hmac>`: readable until `expiresAt`, by whoever holds it. */
export function signedFileUrl(config: Pick<Config, 'PUBLIC_BASE_URL'>, secret: string, key: string, expiresAt: Date): string {
  const exp = Math.ceil(expiresAt.getTime() / 1000);
  return `${publicFileUrl(config, key)}?exp=${exp}&sig=${signature(secret, key, exp)}`;
}

/** True when `sig` signs `key` until `exp` and `exp` has not passed. */
export function verifyFileSignature(secret: string, key: string, exp: unknown, sig: unknown, now = Date.now()): boolean {
  if (typeof exp !== 'string' || typeof sig !== 'string' || !/^\d{1,12}$/.test(exp) || sig.length > 100) return false;
  const e = Number(exp);
  if (e * 1000 < now) return false;
  const want = Buffer.from(signature(secret, key, e));
  const got = Buffer.from(sig);
  return want.length === got.length && timingSafeEqual(want, got);
}
