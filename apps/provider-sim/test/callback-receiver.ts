// A stand-in for our gateway's /hooks/upstream route in simulator tests: it keeps every callback
// exactly as received (headers, raw body, query) so the adapter's verifyCallback can judge it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedCallback {
  headers: Record<string, string | undefined>;
  rawBody: Buffer;
  query: Record<string, string>;
}

export async function startCallbackReceiver(): Promise<{ url: string; received: ReceivedCallback[]; next(): Promise<ReceivedCallback>; close(): Promise<void> }> {
  const received: ReceivedCallback[] = [];
  const waiters: Array<(c: ReceivedCallback) => void> = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://x');
    const cb: ReceivedCallback = {
      headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : v])),
      rawBody: Buffer.concat(chunks),
      query: Object.fromEntries(url.searchParams),
    };
    res.writeHead(204).end();
    const w = waiters.shift();
    if (w) w(cb);
    else received.push(cb);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/upstream`,
    received,
    next: () => {
      const c = received.shift();
      return c ? Promise.resolve(c) : new Promise((r) => waiters.push(r));
    },
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
