// A local HTTP server that answers with the documented payloads under src/<protocol>/__fixtures__,
// so adapter tests run the real client path (axios, deadlines, status codes, headers), not mocks.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

export interface Fixture {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

export const loadFixture = (protocol: string, name: string): Fixture =>
  JSON.parse(fs.readFileSync(path.resolve(__dirname, `../../src/${protocol}/__fixtures__/${name}.json`), 'utf8'));

export interface FixtureServer {
  baseUrl: string;
  requests: RecordedRequest[];
  /** Answers `method path` with these fixtures in turn (the last one repeats). */
  on(method: string, path: string | RegExp, ...answers: Fixture[]): void;
  reset(): void;
  close(): Promise<void>;
}

export async function startFixtureServer(): Promise<FixtureServer> {
  const routes: { method: string; path: string | RegExp; answers: Fixture[] }[] = [];
  const requests: RecordedRequest[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown = raw;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      /* keep the text */
    }
    const p = req.url ?? '/';
    requests.push({ method: req.method ?? '', path: p, headers: req.headers, body });
    const route = [...routes].reverse().find((r) => r.method === req.method && (typeof r.path === 'string' ? r.path === p : r.path.test(p)));
    const answer = route ? (route.answers.length > 1 ? route.answers.shift()! : route.answers[0]) : { status: 404, body: { error: { code: 'NoRoute', message: p } } };
    const data = Buffer.from(JSON.stringify(answer.body));
    res.writeHead(answer.status, { 'Content-Type': 'application/json', 'Content-Length': String(data.length), ...answer.headers });
    res.end(data);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    on: (method, p, ...answers) => void routes.push({ method, path: p, answers }),
    reset() {
      routes.length = 0;
      requests.length = 0;
    },
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
