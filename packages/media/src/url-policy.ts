// Which URLs a submit may make the service fetch. Reference URLs are client input, so without this
// check a submit could make the service reach its own network (cloud metadata, databases, admin
// ports): server-side request forgery. The check runs on the addresses a host name resolves to,
// and safe-fetch.ts connects to exactly the address checked here (no second DNS lookup that a
// rebinding DNS server could answer differently), for the first URL and for every redirect.

import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { MediaProblem } from './problem';
import type { MediaPolicy, ResolvedAddress, Resolver } from './policy';

export type { Resolver, ResolvedAddress };

export interface CheckedUrl {
  url: URL;
  /** Every address of the host; all of them passed the check. Connect to one of these only. */
  addresses: ResolvedAddress[];
}

const systemResolver: Resolver = async (hostname) => {
  const all = await lookup(hostname, { all: true, verbatim: true });
  return all.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/**
 * Why `ip` must not be fetched, or null when it is an ordinary public unicast address. Allow-list
 * rather than deny-list: ipaddr.js names every special-purpose range (loopback, private, link-local
 * incl. 169.254.169.254, carrier-grade NAT, unique-local, multicast, reserved, 6to4/Teredo/NAT64
 * that can wrap a private IPv4, ...) and only `unicast` is accepted. IPv4-mapped IPv6
 * (::ffff:10.0.0.1) is unwrapped first so it is judged as the IPv4 address it reaches.
 */
export function privateAddressReason(ip: string): string | null {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.process(ip);
  } catch {
    return 'not an IP address'; // isValid accepts some spellings (::10.0.0.1) that parse refuses
  }
  const range = addr.range();
  if (range !== 'unicast') return range;
  if (addr.kind() === 'ipv6') {
    // Ranges ipaddr.js still calls unicast but that are not public internet hosts.
    for (const [cidr, name] of EXTRA_IPV6_REFUSED) if ((addr as ipaddr.IPv6).match(cidr)) return name;
  }
  return null;
}

// IPv4-compatible addresses (::a.b.c.d, deprecated by RFC 4291) reach the embedded IPv4 address on
// some stacks; the local-use NAT64 prefix (RFC 8215) translates to any IPv4 address the operator's
// NAT64 chooses, private ones included; site-local (RFC 3879) is the old private range; 100::/64
// discards (RFC 6666).
const EXTRA_IPV6_REFUSED: [[ipaddr.IPv6, number], string][] = [
  [ipaddr.IPv6.parseCIDR('::/96'), 'ipv4Compatible'],
  [ipaddr.IPv6.parseCIDR('64:ff9b:1::/48'), 'nat64LocalUse'],
  [ipaddr.IPv6.parseCIDR('fec0::/10'), 'siteLocal'],
  [ipaddr.IPv6.parseCIDR('100::/64'), 'discardOnly'],
];

/** The host has no address now: a DNS failure may pass, unlike a refusal by the policy. */
export class UnresolvedHost extends MediaProblem {}

/** Parses and checks a reference URL and resolves its host; throws MediaProblem when refused. */
export async function checkUrl(raw: string, policy: Pick<MediaPolicy, 'allowPrivate' | 'resolve'>): Promise<CheckedUrl> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new MediaProblem('not a valid URL');
  }
  if (url.protocol !== 'https:' && !(policy.allowPrivate && url.protocol === 'http:')) {
    throw new MediaProblem(`URL must use https:// (got ${url.protocol}//)`);
  }
  // "No login"; credentials in a URL would also end up in logs and provider requests.
  if (url.username || url.password) throw new MediaProblem('URL must not contain a user name or password');

  // WHATWG URL parsing has already normalised odd IPv4 spellings (0x7f.1, 2130706433) to dotted form.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  // RFC 6761: these names are loopback whatever a resolver says; refuse them without asking.
  if (!policy.allowPrivate && /(^|\.)localhost\.?$/i.test(host)) {
    throw new MediaProblem(`URL points to a non-public address (${host}, loopback); only public internet URLs are accepted`);
  }
  let addresses: ResolvedAddress[];
  if (ipaddr.isValid(host)) {
    addresses = [{ address: host, family: host.includes(':') ? 6 : 4 }];
  } else {
    try {
      addresses = await (policy.resolve ?? systemResolver)(host);
    } catch {
      addresses = [];
    }
    if (addresses.length === 0) throw new UnresolvedHost(`host ${host} could not be resolved`);
  }

  if (!policy.allowPrivate) {
    // Every address, not just the first: the connection may be made to any of them.
    for (const a of addresses) {
      const reason = privateAddressReason(a.address);
      if (reason) {
        throw new MediaProblem(`URL points to a non-public address (${a.address}, ${reason}); only public internet URLs are accepted`);
      }
    }
  }
  return { url, addresses };
}

/** Throws MediaProblem unless `url` is https and every address of its host is public. */
export async function assertPublicUrl(url: string, policy: Pick<MediaPolicy, 'allowPrivate' | 'resolve'>): Promise<void> {
  await checkUrl(url, policy);
}
