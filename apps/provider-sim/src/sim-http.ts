// Small HTTP helpers every simulated protocol uses: JSON answers, bounded JSON bodies, keys.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';

const MAX_BODY = 16 << 20;

export const sleep = (ms: number) => (ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve());

export function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const data = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': String(data.length), ...headers });
  res.end(data);
}

/** The http-jobs error shape; other protocols answer in their own shape through send(). */
export const fail = (res: ServerResponse, status: number, code: string, message: string, headers?: Record<string, string>) =>
  send(res, status, { error: { code, message } }, headers);

/** The raw body, at most 16 MB (references inline as base64 can be large); null when larger. */
export async function readBody(req: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY) return null;
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The body as a JSON object, or null when it is not one. */
export async function readJson(req: IncomingMessage): Promise<Record<string, unknown> | null> {
  const raw = await readBody(req);
  if (!raw) return null;
  try {
    const v = JSON.parse(raw.toString('utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

/** `Authorization: Bearer <key>` / `Key <key>` / `Token <key>`, `x-goog-api-key`, or `?key=`. */
export function requestKey(req: IncomingMessage, url: URL): string | undefined {
  const auth = req.headers.authorization;
  if (typeof auth === 'string') {
    const m = /^(?:Bearer|Key|Token)\s+(.+)$/i.exec(auth.trim());
    if (m) return m[1];
  }
  const goog = req.headers['x-goog-api-key'];
  if (typeof goog === 'string') return goog;
  return url.searchParams.get('key') ?? undefined;
}

// Kept-alive sockets for the callbacks the simulated upstreams post. The simulator shares the
// benchmark's cores with the service it stands in front of, and a fetch() per callback cost it about
// half a millisecond of CPU in the very milliseconds the service settles that render
// (docs/benchmark.md, "Time to result with callbacks: the measurement's own load, and three cuts").
const hookAgents = { 'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }), 'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }) };

/** POSTs a callback; resolves with the answer's status (the body is read and dropped), rejects on a network error or when the socket is idle for `timeoutMs`. */
export function postHook(url: string, headers: Record<string, string>, body: string | Buffer, timeoutMs = 15_000): Promise<number> {
  const u = new URL(url);
  const lib = u.protocol === 'https:' ? https : http;
  const agent = hookAgents[u.protocol as keyof typeof hookAgents];
  if (!agent) return Promise.reject(new Error(`callback URL ${u.protocol} is not http(s)`));
  return new Promise((resolve, reject) => {
    const req = lib.request(u, { method: 'POST', agent, headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) }, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('callback timed out')));
    req.on('error', reject);
    req.end(body);
  });
}
