// What must never reach a log line, removed from every object a process logs:
// - credentials, by field name at any depth: client API keys and the admin token (Authorization
//   headers), upstream keys (channel `apiKey`), and the request/response configs axios attaches
//   to its errors (they hold the upstream's Authorization header and the request body);
// - inline files, by content: data: URIs (reference media, up to tens of MB of base64) anywhere in a
//   string. They leak the client's file and can make one line megabytes long.
// One walk over the object does both. pino's own `redact` option needs wildcard paths to cover the
// same ground, and those cost the gateway ~7 us per request line (measured) against ~0.5 us here.

const DATA_URI = /data:([\w.+-]+\/[\w.+-]+)?((?:;[\w.+-]+=[^;,\s"']*)*)(;base64)?,[^\s"'<>]*/gi;
const MAX_DEPTH = 8;
export const CENSOR = '[redacted]';
/** What stands in for an object nested deeper than MAX_DEPTH. */
export const DEPTH_CENSOR = '[redacted: nested too deep]';

/** Field names (lower-case) whose values are never logged, at any depth. */
export const SECRET_FIELDS: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'apikey',
  'api_key',
  'key',
  'token',
  'admintoken',
  'upstreamkey',
  'password',
  'secret',
  'secretaccesskey',
]);
/** Fields of HTTP client errors (axios) that carry the whole request, headers and body included. */
const ERROR_REQUEST_FIELDS: ReadonlySet<string> = new Set(['config', 'request', 'response']);

export function redactString(s: string): string {
  if (s.length < 16 || !/data:/i.test(s)) return s;
  return s.replace(DATA_URI, (m, mime?: string, _params?: string, b64?: string) => `data:${mime ?? ''}${b64 ?? ''},[${m.length} characters redacted]`);
}

/** A copy of `value` without secrets (unchanged parts are shared; a clean object is returned as is). */
export function redactValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactString(value);
  if (value === null || typeof value !== 'object') return value;
  // Past the depth limit nothing is looked at, so nothing may pass: a secret nested deeper than the
  // walk goes would otherwise be logged as is.
  if (depth > MAX_DEPTH) return DEPTH_CENSOR;
  if (Buffer.isBuffer(value)) return `[${value.length} bytes]`;
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    value.forEach((v, i) => {
      const r = redactValue(v, depth + 1);
      if (r !== v) (out ??= [...value])[i] = r;
    });
    return out ?? value;
  }
  if (value instanceof Error) return redactError(value, depth);
  let out: Record<string, unknown> | null = null;
  for (const k of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[k];
    const r = SECRET_FIELDS.has(k.toLowerCase()) ? CENSOR : redactValue(v, depth + 1);
    if (r !== v) (out ??= { ...(value as Record<string, unknown>) })[k] = r;
  }
  return out ?? value;
}

/** Errors stay errors unless they carry something to remove; then a plain copy pino logs alike. */
function redactError(err: Error, depth: number): unknown {
  const message = redactString(err.message);
  const stack = err.stack && redactString(err.stack);
  const extra: Record<string, unknown> = {};
  let changed = message !== err.message || stack !== err.stack;
  for (const k of Object.keys(err)) {
    const v = (err as unknown as Record<string, unknown>)[k];
    const lower = k.toLowerCase();
    if (ERROR_REQUEST_FIELDS.has(lower)) {
      changed = true; // dropped: the status code and error code below say what happened
      continue;
    }
    const r = SECRET_FIELDS.has(lower) ? CENSOR : redactValue(v, depth + 1);
    if (r !== v) changed = true;
    extra[k] = r;
  }
  if (!changed) return err;
  const status = (err as { response?: { status?: unknown } }).response?.status;
  return { type: err.name, message, stack, ...extra, ...(status !== undefined ? { status } : {}) };
}
