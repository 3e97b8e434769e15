// webhooks.verify: checks a Standard Webhooks signature (https://www.standardwebhooks.com/):
// `webhook-signature: v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{raw body}">`
// keyed with the base64 part of a `whsec_...` secret, and a timestamp within the tolerance (so a
// captured request cannot be replayed later). Written on node:crypto rather than taking the
// `standardwebhooks` package as a runtime dependency: the check is these few lines, and the SDK
// then needs nothing beyond Node. The tests verify events signed by that package.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { MediaGenError } from '../errors';
import type { WebhookEvent } from '../types';

export class WebhookVerificationError extends MediaGenError {}

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** Largest accepted age (or clock skew) of webhook-timestamp, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The current time, for tests. */
  now?: Date;
}

const headerOf = (headers: WebhookHeaders, name: string): string | undefined => {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const rec = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(rec).find((k) => k.toLowerCase() === name);
  const v = key === undefined ? undefined : rec[key];
  return Array.isArray(v) ? v[0] : v;
};

const secretKey = (secret: string): Buffer => Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');

export class Webhooks {
  /**
   * Verifies and parses a webhook request. `rawBody` must be the bytes as received (not re-serialized
   * JSON). `secret` may be a list: during a rotation both the old and the new secret verify.
   * Throws WebhookVerificationError when the request is not authentic.
   */
  verify(rawBody: string | Uint8Array, headers: WebhookHeaders, secret: string | string[], opts: VerifyOptions = {}): WebhookEvent {
    const id = headerOf(headers, 'webhook-id');
    const timestamp = headerOf(headers, 'webhook-timestamp');
    const signatures = headerOf(headers, 'webhook-signature');
    if (!id || !timestamp || !signatures) throw new WebhookVerificationError('Missing webhook-id, webhook-timestamp or webhook-signature header');
    if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('Invalid webhook-timestamp');
    const nowS = Math.floor((opts.now ?? new Date()).getTime() / 1000);
    if (Math.abs(nowS - Number(timestamp)) > (opts.toleranceSeconds ?? 300)) throw new WebhookVerificationError('webhook-timestamp outside the tolerance');
    const body = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8');
    const signed = `${id}.${timestamp}.${body}`;
    const given = signatures
      .split(' ')
      .map((s) => s.split(','))
      .filter(([version, sig]) => version === 'v1' && sig)
      .map(([, sig]) => Buffer.from(sig, 'base64'));
    for (const s of Array.isArray(secret) ? secret : [secret]) {
      const expected = createHmac('sha256', secretKey(s)).update(signed).digest();
      if (given.some((g) => g.length === expected.length && timingSafeEqual(g, expected))) {
        try {
          return JSON.parse(body) as WebhookEvent;
        } catch {
          throw new WebhookVerificationError('Webhook body is not JSON');
        }
      }
    }
    throw new WebhookVerificationError('No matching signature');
  }
}
