// Who may read the operational endpoints of the gateway and the worker: `/metrics`, the worker's
// `/stats`, and the failure detail of `/readyz`. One rule for both processes: a bearer METRICS_TOKEN
// (read-only, for the scraper) or ADMIN_TOKEN, compared in constant time (sha256 first, so the
// lengths are equal and every configured token is compared whichever matches).
import { createHash, timingSafeEqual } from 'node:crypto';

const sha256 = (s: string) => createHash('sha256').update(s).digest();

/** Does an Authorization header carry `Bearer <one of tokens>`? Unset tokens never match. */
export function bearerTokenMatcher(...tokens: (string | undefined)[]): (authorization: string | undefined) => boolean {
  const expected = tokens.filter((t): t is string => !!t).map(sha256);
  return (authorization) => {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    const given = sha256(m?.[1] ?? '');
    let ok = false;
    for (const e of expected) ok = timingSafeEqual(given, e) || ok;
    return !!m && ok;
  };
}

/** The tokens that open the operational endpoints. */
export interface EndpointTokens {
  ADMIN_TOKEN: string;
  METRICS_TOKEN?: string;
}

/** The check of `/metrics`, `/stats` and `/readyz` detail: METRICS_TOKEN or ADMIN_TOKEN. */
export const endpointAccess = (tokens: EndpointTokens) => bearerTokenMatcher(tokens.METRICS_TOKEN, tokens.ADMIN_TOKEN);

/** The 401 body of those endpoints (the error model's shape). */
export const ENDPOINT_UNAUTHORIZED = { error: 'Needs "Authorization: Bearer <METRICS_TOKEN>" (or ADMIN_TOKEN)', code: 'unauthorized' } as const;
