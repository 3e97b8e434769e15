// fal webhook signatures (docs.fal.ai webhooks; providers.md 6): ED25519 over
// "request_id \n user_id \n timestamp \n sha256_hex(raw body)", hex in X-Fal-Webhook-Signature,
// checked against every key of the JWKS fal publishes, with 5 minutes of clock skew allowed.
//
// node:crypto rather than a library: Node verifies Ed25519 natively and imports the JWKS entry
// directly (`{kty: 'OKP', crv: 'Ed25519', x}` is the raw 32-byte public key in base64url), so a
// dependency (tweetnacl, libsodium, jose) would add code without adding anything we need.
import { createHash, createPublicKey, KeyObject, verify } from 'node:crypto';
import axios from 'axios';
import { jwksSchema } from './fal-schemas';

export const FAL_SKEW_MS = 5 * 60_000;
/** fal says keys may be cached up to 24 h. */
const KEYS_TTL_MS = 24 * 60 * 60_000;
/** An unknown signature triggers at most one key refresh per minute (key rotation, not a DoS lever). */
const REFRESH_MIN_MS = 60_000;

export type FetchJson = (url: string) => Promise<unknown>;

const defaultFetchJson: FetchJson = async (url) =>
  (await axios.get(url, { maxRedirects: 0, maxContentLength: 1 << 20, signal: AbortSignal.timeout(10_000) })).data;

/** The key set behind one JWKS URL, cached, refreshed on expiry or (rate-limited) on a miss. */
export class FalKeySet {
  private keys: KeyObject[] = [];
  private fetchedAt = -Infinity;
  private pending: Promise<KeyObject[]> | null = null;

  constructor(
    private readonly url: string,
    private readonly fetchJson: FetchJson = defaultFetchJson,
    private readonly now: () => number = Date.now,
  ) {}

  async get(refresh = false): Promise<KeyObject[]> {
    const age = this.now() - this.fetchedAt;
    const stale = age > KEYS_TTL_MS || (refresh && age > REFRESH_MIN_MS);
    if (!stale) return this.keys;
    this.pending ??= this.load().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  private async load(): Promise<KeyObject[]> {
    const jwks = jwksSchema.parse(await this.fetchJson(this.url));
    const keys: KeyObject[] = [];
    for (const k of jwks.keys) {
      if (k.kty !== 'OKP' || k.crv !== 'Ed25519' || !k.x) continue;
      try {
        keys.push(createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: k.x }, format: 'jwk' }));
      } catch {
        /* a malformed entry does not invalidate the others */
      }
    }
    this.keys = keys;
    this.fetchedAt = this.now();
    return keys;
  }
}

const header = (headers: Record<string, string | undefined>, name: string): string | undefined => {
  const want = name.toLowerCase();
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === want) return v;
  return undefined;
};

/**
 * The request id of a correctly signed, fresh fal webhook; null when anything is missing or wrong
 * (the caller answers without telling which).
 */
export async function verifyFalWebhook(
  input: { headers: Record<string, string | undefined>; rawBody: Buffer },
  keySet: FalKeySet,
  now = Date.now(),
): Promise<string | null> {
  const requestId = header(input.headers, 'x-fal-webhook-request-id');
  const userId = header(input.headers, 'x-fal-webhook-user-id');
  const timestamp = header(input.headers, 'x-fal-webhook-timestamp');
  const signatureHex = header(input.headers, 'x-fal-webhook-signature');
  if (!requestId || !userId || !timestamp || !signatureHex || !/^\d+$/.test(timestamp) || !/^[0-9a-f]+$/i.test(signatureHex)) return null;
  if (Math.abs(now - Number(timestamp) * 1000) > FAL_SKEW_MS) return null;
  const message = Buffer.from([requestId, userId, timestamp, createHash('sha256').update(input.rawBody).digest('hex')].join('\n'), 'utf8');
  const signature = Buffer.from(signatureHex, 'hex');
  if (signature.length !== 64) return null;
  const check = (keys: KeyObject[]) => keys.some((k) => verify(null, message, k, signature));
  if (check(await keySet.get()) || check(await keySet.get(true))) return requestId;
  return null;
}
