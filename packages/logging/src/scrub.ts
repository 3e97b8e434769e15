// Inline files travel as data: URIs (reference media, up to tens of MB of base64). A log line must
// never carry one: it leaks the client's file and can make one line megabytes long. pino's redact
// works on paths, not on values, so strings are scrubbed by content here.
const DATA_URI = /data:([\w.+-]+\/[\w.+-]+)?((?:;[\w.+-]+=[^;,\s"']*)*)(;base64)?,[^\s"'<>]*/gi;
const MAX_DEPTH = 8;

export function scrubString(s: string): string {
  if (s.length < 16 || !/data:/i.test(s)) return s;
  return s.replace(DATA_URI, (m, mime?: string, _params?: string, b64?: string) => `data:${mime ?? ''}${b64 ?? ''},[${m.length} characters redacted]`);
}

/** A copy of `value` with every data: URI in its strings cut out (objects without one are returned as is). */
export function scrubValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrubString(value);
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return value;
  if (Buffer.isBuffer(value)) return `[${value.length} bytes]`;
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v) => {
      const s = scrubValue(v, depth + 1);
      if (s !== v) changed = true;
      return s;
    });
    return changed ? out : value;
  }
  if (value instanceof Error) {
    const message = scrubString(value.message);
    const stack = value.stack && scrubString(value.stack);
    if (message === value.message && stack === value.stack) return value;
    const copy = new Error(message);
    copy.name = value.name;
    copy.stack = stack;
    return copy;
  }
  let out: Record<string, unknown> | null = null;
  for (const [k, v] of Object.entries(value)) {
    const s = scrubValue(v, depth + 1);
    if (s !== v) (out ??= { ...(value as Record<string, unknown>) })[k] = s;
  }
  return out ?? value;
}
