// Query parameters that are credentials, removed from URLs before they are logged: the `sig` of
// signed input-file URLs (a bearer capability until it expires), the `token` of upstream callback
// URLs, and any parameter named like a secret (api_key, access_token, client_secret, password,
// X-Amz-Signature, ...). The path and the other parameters stay, as sent, for debugging.

/** Names (case-insensitive, matched anywhere in the decoded name) whose values are never logged. */
const SECRET_PARAM = /sig|token|secret|passw|pwd|key|auth|credential|session|code/i;
const CENSOR = '[redacted]';

const decodedName = (raw: string): string => {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
};

/** `url` with the values of secret-like query parameters replaced by `[redacted]`. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url; // the common case: no query, nothing to do
  const hash = url.indexOf('#', q);
  const query = url.slice(q + 1, hash < 0 ? undefined : hash);
  let changed = false;
  const parts = query.split('&').map((part) => {
    const eq = part.indexOf('=');
    const name = eq < 0 ? part : part.slice(0, eq);
    if (eq < 0 || !SECRET_PARAM.test(decodedName(name))) return part;
    changed = true;
    return `${name}=${CENSOR}`;
  });
  return changed ? `${url.slice(0, q + 1)}${parts.join('&')}${hash < 0 ? '' : url.slice(hash)}` : url;
}
