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

export interface SafeResponse {
  res: http.IncomingMessage;
  /** The URL that answered, after redirects. */
  url: URL;
  /** The checked addresses the connection was limited to. */
  addresses: ResolvedAddress[];
}

/** One request to already-checked addresses. Swappable so redirect handling can be tested alone. */
export type Hop = (url: URL, addresses: ResolvedAddress[], headers: Record<string, string>, signal: AbortSignal) => Promise<http.IncomingMessage>;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export async function safeFetch(
  rawUrl: string,
  policy: Pick<MediaPolicy, 'allowPrivate' | 'resolve' | 'maxRedirects'>,
  opts: { headers?: Record<string, string>; signal: AbortSignal },
  hop: Hop = pinnedRequest,
): Promise<SafeResponse> {
  let current = rawUrl;
  for (let redirects = 0; ; redirects++) {
    const { url, addresses } = await withSignal(checkUrl(current, policy), opts.signal);
    const res = await hop(url, addresses, opts.headers ?? {}, opts.signal);
    const location = res.headers.location;
    if (!REDIRECTS.has(res.statusCode ?? 0) || !location) return { res, url, addresses };
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
    const lookup: LookupFunction = (_host, options, cb) => {
      // With `all` (Node's default happy-eyeballs connect) it gets every checked address and
      // tries them in turn, so an IPv6 answer on an IPv4-only host still connects; all passed.
      if (options.all) (cb as (e: null, a: ResolvedAddress[]) => void)(null, addresses);
      else cb(null, addresses[0].address, addresses[0].family);
    };
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

export interface PinnedPool {
  /** A Hop like pinnedRequest, on kept-alive connections. */
  hop: Hop;
  /** Closes every kept connection (process shutdown). */
  close(): void;
}

/**
 * pinnedRequest on kept-alive connections, for fetches that come back to the same few hosts (a
 * provider's result files): no TCP (and TLS) handshake per file. Pinning holds as before: one agent
 * per origin AND set of checked addresses, whose lookup answers only those addresses, so a kept
 * socket is always connected to an address that this request's own check allowed; a host whose
 * DNS answer changed gets another agent. Idle sockets close after `idleMs` (below the usual 5 s of
 * servers), and a request that meets a kept socket the server had just closed is sent once more on
 * a new one (GET only, nothing was read), as Node's documentation advises. At most `maxAgents`
 * agents are kept; the least recently used one is closed first.
 */
export function createPinnedPool(opts: { idleMs?: number; maxAgents?: number; maxFreeSockets?: number } = {}): PinnedPool {
  const idleMs = opts.idleMs ?? 4_000;
  const maxAgents = opts.maxAgents ?? 32;
  const agents = new Map<string, http.Agent>();
  const agentFor = (url: URL, addresses: ResolvedAddress[]): http.Agent => {
    const key = `${url.protocol}//${url.host}|${addresses.map((a) => `${a.family}/${a.address}`).join(',')}`;
    let agent = agents.get(key);
    if (agent) {
      agents.delete(key); // re-inserted below: the map's order is the recency order
    } else {
      const lookup: LookupFunction = (_host, options, cb) => {
        if (options.all) (cb as (e: null, a: ResolvedAddress[]) => void)(null, addresses);
        else cb(null, addresses[0].address, addresses[0].family);
      };
      const mod = url.protocol === 'https:' ? https : http;
      agent = new mod.Agent({ keepAlive: true, timeout: idleMs, maxFreeSockets: opts.maxFreeSockets ?? 8, lookup } as http.AgentOptions);
      if (agents.size >= maxAgents) {
        const [oldest, old] = agents.entries().next().value as [string, http.Agent];
        agents.delete(oldest);
        old.destroy();
      }
    }
    agents.set(key, agent);
    return agent;
  };
  const hop: Hop = (url, addresses, headers, signal) => request(url, agentFor(url, addresses), headers, signal, true);
  return {
    hop,
    close() {
      for (const a of agents.values()) a.destroy();
      agents.clear();
    },
  };
}

function request(url: URL, agent: http.Agent, headers: Record<string, string>, signal: AbortSignal, retryStale: boolean): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    throwIfAborted(signal);
    const mod = url.protocol === 'https:' ? https : http;
    const req = mod.request(url, {
      method: 'GET',
      agent,
      headers: { 'accept-encoding': 'identity', 'user-agent': 'mediagen-reference-inspector/1.0', ...headers },
    });
    const onAbort = () => req.destroy(deadlineProblem(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    req.on('response', (res) => {
      signal.removeEventListener('abort', onAbort);
      resolve(res);
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      signal.removeEventListener('abort', onAbort);
      // A kept socket the server closed while it sat idle: the request never reached it.
      if (retryStale && req.reusedSocket && err.code === 'ECONNRESET' && !signal.aborted) {
        request(url, agent, headers, signal, false).then(resolve, reject);
        return;
      }
      reject(signal.aborted ? deadlineProblem(signal) : new MediaProblem(`could not be fetched (${describeNetError(err)})`));
    });
    req.end();
  });
}

function describeNetError(err: NodeJS.ErrnoException): string {
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
