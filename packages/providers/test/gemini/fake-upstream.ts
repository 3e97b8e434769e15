// A scripted upstream for adapter unit tests (shared by the gemini, fal and replicate tests): each
// route answers what the test sets, usually a recorded fixture, and every request is kept so the
// test can read what the adapter sent.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Answer {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
}
export interface SeenRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: any;
}
type Handler = (req: SeenRequest) => Answer | Promise<Answer>;

export interface FakeUpstream {
  base: string;
  requests: SeenRequest[];
  on(method: string, path: string | RegExp, handler: Handler | Answer): void;
  reset(): void;
  close(): Promise<void>;
}

export async function startFakeUpstream(): Promise<FakeUpstream> {
  let routes: Array<{ method: string; path: string | RegExp; handler: Handler }> = [];
  const requests: SeenRequest[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://x');
    let body: unknown = raw;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      /* keep the text */
    }
    const seen: SeenRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body };
    requests.push(seen);
    const route = [...routes].reverse().find((r) => r.method === seen.method && (typeof r.path === 'string' ? r.path === seen.path : r.path.test(seen.path)));
    const answer = route ? await route.handler(seen) : { status: 404, body: { detail: 'no route in the fake upstream' } };
    const data = Buffer.from(answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
    res.writeHead(answer.status ?? 200, { 'Content-Type': 'application/json', 'Content-Length': String(data.length), ...answer.headers });
    res.end(data);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    requests,
    on(method, path, handler) {
      routes.push({ method, path, handler: typeof handler === 'function' ? handler : () => handler });
    },
    reset() {
      routes = [];
      requests.length = 0;
    },
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A reference as the worker hands it over: a URL plus the bytes on demand. */
export const reference = (role: 'first_frame' | 'last_frame' | 'reference_image' | 'reference_video' | 'reference_audio', url: string, contentType = 'image/png', bytes = Buffer.from(url)) => ({
  role,
  url,
  contentType,
  data: async () => bytes,
});
