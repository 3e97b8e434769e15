// A webhook receiver for the end-to-end tests: records every POST (path, headers, raw body) and
// answers 204, or 503 while its path is switched "down". Signatures are checked by the tests with
// the `standardwebhooks` library, as a client would.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedCall {
  path: string;
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  /** What the receiver answered. */
  status: number;
  at: number;
}

export interface Receiver {
  url: (path: string) => string;
  calls: ReceivedCall[];
  /** Calls answered 2xx, per webhook-id. */
  accepted(path?: string): Map<string, ReceivedCall[]>;
  setDown(path: string, down: boolean): void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const calls: ReceivedCall[] = [];
  const down = new Set<string>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0];
      const status = down.has(path) ? 503 : 204;
      calls.push({
        path,
        id: String(req.headers['webhook-id'] ?? ''),
        timestamp: String(req.headers['webhook-timestamp'] ?? ''),
        signature: String(req.headers['webhook-signature'] ?? ''),
        body: Buffer.concat(chunks).toString('utf8'),
        status,
        at: Date.now(),
      });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    calls,
    accepted(path) {
      const out = new Map<string, ReceivedCall[]>();
      for (const c of calls) if (c.status < 300 && (!path || c.path === path)) out.set(c.id, [...(out.get(c.id) ?? []), c]);
      return out;
    },
    setDown: (path, d) => void (d ? down.add(path) : down.delete(path)),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** Headers as a Standard Webhooks verifier takes them. */
export const headersOf = (c: ReceivedCall) => ({ 'webhook-id': c.id, 'webhook-timestamp': c.timestamp, 'webhook-signature': c.signature });
