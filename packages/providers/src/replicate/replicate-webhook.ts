// Replicate webhook signatures: Standard Webhooks (HMAC-SHA256 over "{id}.{timestamp}.{body}",
// `webhook-signature: v1,<base64>`, timestamp tolerance), checked with the `standardwebhooks`
// package, the specification's own reference library, rather than hand-written HMAC code.
import { Webhook } from 'standardwebhooks';
import type { CallbackVerdict } from '../channel-adapter';
import { predictionSchema } from './replicate-schemas';
import { outputUrls } from './replicate-status';

const header = (headers: Record<string, string | undefined>, name: string): string | undefined => {
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return undefined;
};

/**
 * A correctly signed, fresh callback's prediction id, and the file URLs of a prediction it says
 * succeeded (a claim only: apps/worker early-status.ts); null otherwise.
 */
export function verifyReplicateWebhook(input: { headers: Record<string, string | undefined>; rawBody: Buffer }, secret: string): CallbackVerdict | null {
  const headers = {
    'webhook-id': header(input.headers, 'webhook-id') ?? '',
    'webhook-timestamp': header(input.headers, 'webhook-timestamp') ?? '',
    'webhook-signature': header(input.headers, 'webhook-signature') ?? '',
  };
  try {
    const body = predictionSchema.safeParse(new Webhook(secret).verify(input.rawBody, headers));
    if (!body.success) return null;
    const urls = body.data.status === 'succeeded' ? outputUrls(body.data.output) : [];
    return urls.length > 0 ? { upstreamId: body.data.id, resultUrls: urls } : { upstreamId: body.data.id };
  } catch {
    return null;
  }
}

/** Whether the callback carries a signature at all: one without is refused before any secret is fetched. */
export const hasReplicateSignature = (headers: Record<string, string | undefined>): boolean =>
  !!header(headers, 'webhook-id') && !!header(headers, 'webhook-timestamp') && !!header(headers, 'webhook-signature');

/** After a failed fetch, the next one waits this long (as the fal key set's refresh): callbacks are not a lever to make us call Replicate. */
export const SECRET_REFETCH_MIN_MS = 60_000;

/**
 * The channel's signing secret: the configured one, or fetched from the secret endpoint: one fetch
 * at a time (concurrent callbacks share it), kept once it succeeded. A failed fetch is retried no
 * sooner than SECRET_REFETCH_MIN_MS later; until then every callback gets the same failure at once.
 */
export class ReplicateSecret {
  private value: Promise<string> | null;
  private failedAt = -Infinity;
  private lastError: unknown = null;

  constructor(
    configured: string | undefined,
    private readonly fetchSecret: () => Promise<string>,
    private readonly now: () => number = Date.now,
  ) {
    this.value = configured ? Promise.resolve(configured) : null;
  }

  get(): Promise<string> {
    if (this.value) return this.value;
    if (this.now() - this.failedAt < SECRET_REFETCH_MIN_MS) return Promise.reject(this.lastError);
    this.value = this.fetchSecret().catch((err) => {
      this.value = null;
      this.failedAt = this.now();
      this.lastError = err;
      throw err;
    });
    return this.value;
  }
}
