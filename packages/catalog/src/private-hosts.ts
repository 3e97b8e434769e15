// Early refusal of reference URLs that name a loopback, private or link-local host literally.
// Only literal names and addresses are checked here (pure code, no DNS); the media prober checks the
// resolved addresses again before it fetches anything. Both exist to keep the provider and our
// prober from being pointed at internal services (SSRF).

const v4 = (host: string): number[] | null => {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  return parts.every((n) => n <= 255) ? parts : null;
};

function isPrivateV4([a, b]: number[]): boolean {
  return (
    a === 0 || a === 10 || a === 127 ||
    (a === 100 && b >= 64 && b <= 127) || // carrier-grade NAT
    (a === 169 && b === 254) || // link-local, cloud metadata endpoints
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    a >= 224 // multicast and reserved
  );
}

function isPrivateV6(host: string): boolean {
  const h = host.toLowerCase();
  if (h === '::' || h === '::1') return true;
  // IPv4-mapped addresses; the WHATWG URL parser writes them as hex (::ffff:7f00:1).
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(h);
  if (mapped) {
    const hi = parseInt(mapped[1], 16);
    return isPrivateV4([hi >> 8, hi & 255]);
  }
  if (/^::ffff:\d/.test(h)) return true;
  return /^f[cd]/.test(h) || /^fe[89ab]/.test(h) || /^ff/.test(h);
}

/** `hostname` as the WHATWG URL parser gives it (IPv6 in brackets, IPv4 normalized). */
export function isPrivateHostname(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host.endsWith('.internal')) return true;
  if (host.startsWith('[') && host.endsWith(']')) return isPrivateV6(host.slice(1, -1));
  const parts = v4(host);
  if (parts) return isPrivateV4(parts);
  // A name without a dot cannot be a public internet host (e.g. `metadata`, `redis`).
  return !host.includes('.');
}
