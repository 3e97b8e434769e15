// Standard Webhooks signing (the webhook contract every receiver verifies) through the reference
// library `standardwebhooks`: `webhook-signature: v1,<base64 HMAC-SHA256 of "{id}.{ts}.{body}">`.
// During a secret rotation both secrets sign, space-separated, so a receiver holding either one
// verifies (the specification allows several signatures in the header for exactly this).
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** A new signing secret, `whsec_` + base64 of 32 random bytes (the Standard Webhooks format). */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** Headers of one attempt: the timestamp is the attempt's (receivers reject old timestamps). */
export function signWebhook(secrets: string[], msgId: string, at: Date, body: string): SignedHeaders {
  if (secrets.length === 0) throw new Error('signWebhook: no secret');
  const signatures = secrets.map((s) => new Webhook(s).sign(msgId, at, body));
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}

/** The secrets that sign now: the current one, and the previous one while its overlap lasts. */
export function activeSecrets(e: { secret: string; previousSecret: string | null; previousSecretExpiresAt: Date | null }, now = new Date()): string[] {
  const out = [e.secret];
  if (e.previousSecret && e.previousSecretExpiresAt && e.previousSecretExpiresAt.getTime() > now.getTime()) out.push(e.previousSecret);
  return out;
}
