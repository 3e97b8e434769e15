// Replicate webhook signatures: Standard Webhooks (HMAC-SHA256 over "{id}.{timestamp}.{body}",
// `webhook-signature: v1,<base64>`, timestamp tolerance), checked with the `standardwebhooks`
// package, the specification's own reference library, rather than hand-written HMAC code.
import { Webhook } from 'standardwebhooks';
import { predictionSchema } from './replicate-schemas';

const header = (headers: Record<string, string | undefined>, name: string): string | undefined => {
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return undefined;
};

/** The prediction id of a correctly signed, fresh callback; null otherwise. */
export function verifyReplicateWebhook(input: { headers: Record<string, string | undefined>; rawBody: Buffer }, secret: string): string | null {
  const headers = {
    'webhook-id': header(input.headers, 'webhook-id') ?? '',
    'webhook-timestamp': header(input.headers, 'webhook-timestamp') ?? '',
    'webhook-signature': header(input.headers, 'webhook-signature') ?? '',
  };
  try {
    const body = predictionSchema.safeParse(new Webhook(secret).verify(input.rawBody, headers));
    return body.success ? body.data.id : null;
  } catch {
    return null;
  }
}

/**
 * The channel's signing secret: the configured one, or fetched once from the secret endpoint.
 * A failed fetch is not remembered, so the next callback tries again.
 */
export class ReplicateSecret {
  private value: Promise<string> | null;

  constructor(configured: string | undefined, private readonly fetchSecret: () => Promise<string>) {
    this.value = configured ? Promise.resolve(configured) : null;
  }

  get(): Promise<string> {
    this.value ??= this.fetchSecret().catch((err) => {
      this.value = null;
      throw err;
    });
    return this.value;
  }
}
