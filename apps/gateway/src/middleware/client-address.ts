// The client's address, for the per-address limits (ip-limits.ts), the console's login limit (Express
// req.ip) and nothing else. TRUST_PROXY (off by default) names the proxies whose X-Forwarded-For is
// believed: a hop count or their addresses. Off, the address is the TCP peer, and a spoofed
// X-Forwarded-For changes nothing. One trust function serves Express (`trust proxy`) and the code
// that runs before Express sets a request up (the cached-poll lane), so both see the same address.
import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';
import type { Config } from '@mediagen/config';

export type TrustProxy = (addr: string, hop: number) => boolean;

/** The trust function of a TRUST_PROXY setting, or false when no proxy is trusted. */
export function trustProxyFn(setting: Config['TRUST_PROXY']): TrustProxy | false {
  if (setting === false || setting === undefined) return false;
  // A hop count trusts that many proxies in front of us, whatever their addresses (Express's rule).
  if (typeof setting === 'number') return (_addr, hop) => hop < setting;
  return proxyaddr.compile(setting);
}

/** The client address of `req` under `trust` (a raw request or Express's). */
export function clientAddressWith(trust: TrustProxy | false): (req: IncomingMessage) => string {
  if (trust === false) return (req) => req.socket.remoteAddress ?? 'unknown';
  return (req) => proxyaddr(req, trust);
}
