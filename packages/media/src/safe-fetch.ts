// HTTP GET for client-supplied URLs. Each hop is checked by url-policy.ts and the socket is pinned
// to the address that was checked: the Agent's `lookup` answers with that address instead of asking
// DNS again, so a rebinding DNS server cannot swap in 127.0.0.1 between check and connect.
// Redirects are followed by hand, and each target goes through the same check and pinning.

import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { MediaPolicy } from './policy';
import { MediaProblem, deadlineProblem, throwIfAborted } from './problem';
import { checkUrl, type ResolvedAddress } from './url-policy';

export interface SafeResponse<R extends HopResponse = http.IncomingMessage> {
  res: R;
  /** The URL that answered, after redirects. */
  url: URL;
  /** The checked addresses the connection was limited to. */
  addresses: ResolvedAddress[];
}

/** One request to already-checked addresses. Swappable so redirect handling can be tested alone. */
export type Hop<R extends HopResponse = http.IncomingMessage> = (url: URL, addresses: ResolvedAddress[], headers: Record<string, string>, signal: AbortSignal) => Promise<R>;

/** What safeFetch needs of a response: node:http's, or pooled-request.ts's. */
export interface HopResponse {
  statusCode?: number;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  destroy(): void;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export async function safeFetch<R extends HopResponse = http.IncomingMessage>(
  rawUrl: string,
  policy: Pick<MediaPolicy, 'allowPrivate' | 'resolve' | 'maxRedirects'>,
  opts: { headers?: Record<string, string>; signal: AbortSignal },
  hop: Hop<R> = pinnedRequest as unknown as Hop<R>,
): Promise<SafeResponse<R>> {
  let current = rawUrl;
  for (let redirects = 0; ; redirects++) {
    const { url, addresses } = await withSignal(checkUrl(current, policy), opts.signal);
    const res = await hop(url, addresses, opts.headers ?? {}, opts.signal);
    const location = res.headers.location;
    if (!REDIRECTS.has(res.statusCode ?? 0) || typeof location !== 'string' || !location) return { res, url, addresses };
    res.destroy();
    if (redirects >= policy.maxRedirects) throw new MediaProblem(`more than ${policy.maxRedirects} redirects`);
    try {
      current = new URL(location, url).toString();
    } catch {
      throw new MediaProblem('redirect to an invalid URL');
    }
  }
}

/** GET `url`, connecting to one of `addresses` only; resolves on response headers. */
export const pinnedRequest: Hop = (url, addresses, headers, signal) =>
  new Promise((resolve, reject) => {
    throwIfAborted(signal);
    const lookup = pinnedLookup(addresses);
    const mod = url.protocol === 'https:' ? https : http;
    // One agent per request without keep-alive: a pooled socket could have been opened to another
    // address by an earlier request to the same host name.
    const agent = new mod.Agent({ keepAlive: false, lookup } as http.AgentOptions);
    const req = mod.request(url, {
      method: 'GET',
      agent,
      headers: {
        // Compressed bodies would make byte offsets meaningless for Range reads.
        'accept-encoding': 'identity',
        'user-agent': 'mediagen-reference-inspector/1.0',
        ...headers,
      },
    });
    const onAbort = () => req.destroy(deadlineProblem(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    req.on('response', (res) => {
      // From here the body reader owns the deadline (readers.ts); dropping the request's own
      // listener avoids one leaked listener per hop on the shared signal.
      signal.removeEventListener('abort', onAbort);
      res.on('close', () => agent.destroy());
      resolve(res);
    });
    req.on('error', (err) => {
      signal.removeEventListener('abort', onAbort);
      agent.destroy();
      reject(signal.aborted ? deadlineProblem(signal) : new MediaProblem(`could not be fetched (${describeNetError(err)})`));
    });
    req.end();
  });

/** A DNS lookup that answers with the checked addresses only, whatever DNS would say now. */
export function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return (_host, options, cb) => {
    // With `all` (Node's default happy-eyeballs connect) it gets every checked address and
    // tries them in turn, so an IPv6 answer on an IPv4-only host still connects; all passed.
    if (options.all) (cb as (e: null, a: ResolvedAddress[]) => void)(null, addresses);
    else cb(null, addresses[0].address, addresses[0].family);
  };
}

export function describeNetError(err: NodeJS.ErrnoException): string {
  if (err.code === 'ECONNREFUSED') return 'connection refused';
  if (err.code === 'ECONNRESET') return 'connection reset';
  if (err.code === 'ETIMEDOUT') return 'connection timed out';
  if (err.code && /CERT|SSL|TLS/.test(err.code)) return `TLS error ${err.code}`;
  return err.code ?? 'network error';
}

/** Races a promise that cannot be cancelled itself (DNS lookup) against the deadline. */
export function withSignal<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(deadlineProblem(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(deadlineProblem(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => { signal.removeEventListener('abort', onAbort); resolve(v); },
      (e) => { signal.removeEventListener('abort', onAbort); reject(e); },
    );
  });
}
