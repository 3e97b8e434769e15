import { createHash } from 'node:crypto';

/** Canonical JSON: object keys sorted, so the same request always hashes the same. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const keys = Object.keys(v as object).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/**
 * What makes two submits "the same request" for idempotency: the endpoint and the body, minus
 * the idempotency id itself (it may move between the header and `client_request_id`).
 */
export function requestFingerprint(endpoint: string, body: unknown): string {
  const rest = body && typeof body === 'object' && !Array.isArray(body) ? { ...(body as Record<string, unknown>) } : body;
  if (rest && typeof rest === 'object') delete (rest as Record<string, unknown>).client_request_id;
  return createHash('sha256').update(endpoint).update('\n').update(canonical(rest)).digest('hex');
}
