// The idempotency fingerprint of a submit body. A long data URI counts by its sha256, so a body
// whose inline images were written to storage as they arrived (its stand-ins noted with the
// digest, middleware/inline-staging.ts) has the same fingerprint as the same body held in memory.
import { createHash } from 'node:crypto';

/** Data URIs from this many characters on count by their digest (the length from which large bodies stage them). */
export const DIGEST_FROM = 64 * 1024;

export interface Digested {
  sha256: string;
}

const digestOf = (s: string, staged?: ReadonlyMap<string, Digested>): string | null => {
  const st = staged?.get(s);
  if (st) return st.sha256;
  if (s.length >= DIGEST_FROM && /^data:/i.test(s)) return createHash('sha256').update(s).digest('hex');
  return null;
};

/** Canonical JSON: object keys sorted, so the same request always hashes the same. */
function canonical(v: unknown, staged?: ReadonlyMap<string, Digested>): string {
  if (Array.isArray(v)) return `[${v.map((x) => canonical(x, staged)).join(',')}]`;
  if (v && typeof v === 'object') {
    const keys = Object.keys(v as object).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k], staged)}`).join(',')}}`;
  }
  if (typeof v === 'string') {
    const d = digestOf(v, staged);
    if (d) return `{"data-uri-sha256":"${d}"}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/**
 * What makes two submits "the same request" for idempotency: the endpoint and the body, minus
 * the idempotency id itself (it may move between the header and `client_request_id`).
 * `staged`: the body's stand-ins for data URIs written to storage as they arrived.
 */
export function requestFingerprint(endpoint: string, body: unknown, staged?: ReadonlyMap<string, Digested>): string {
  const rest = body && typeof body === 'object' && !Array.isArray(body) ? { ...(body as Record<string, unknown>) } : body;
  if (rest && typeof rest === 'object') delete (rest as Record<string, unknown>).client_request_id;
  return createHash('sha256').update(endpoint).update('\n').update(canonical(rest, staged)).digest('hex');
}
