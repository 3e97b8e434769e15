// The URL policy with ALLOW_PRIVATE_MEDIA_URLS off: nothing but public https addresses, judged
// after DNS resolution, on every redirect, and connected to exactly the address that was judged.

import http from 'node:http';
import { AppError } from '@mediagen/errors';
import {
  assertPublicUrl, inspectReferences, mediaPolicyFromConfig, pinnedRequest, privateAddressReason, safeFetch,
  type Hop, type MediaPolicy, type Resolver,
} from '../src';
import { startMediaServer, urlRef, type MediaServer } from './media-server';

let srv: MediaServer;
beforeAll(async () => (srv = await startMediaServer()));
afterAll(() => srv.close());

// Made-up names under the reserved .test TLD; only the injected resolver knows them.
const PUBLIC_IP = '93.184.216.34';
const resolver: Resolver = async (host) => {
  const table: Record<string, string[]> = {
    'cdn.example.test': [PUBLIC_IP],
    'internal.example.test': ['10.0.0.7'],
    'mixed.example.test': [PUBLIC_IP, '192.168.1.20'],
    'metadata.example.test': ['169.254.169.254'],
    'v6.example.test': ['2606:4700::1111'],
    'mapped.example.test': ['::ffff:127.0.0.1'],
  };
  const found = table[host];
  if (!found) throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
  return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};
const strict: MediaPolicy = { allowPrivate: false, timeoutMs: 3000, maxBytesPerRef: 1 << 20, maxRedirects: 3, resolve: resolver };

const refused = (url: string, p = strict) => assertPublicUrl(url, p).then(() => 'allowed', (e: Error) => e.message);

describe('assertPublicUrl with private URLs not allowed', () => {
  test.each([
    ['http://cdn.example.test/a.mp4', /must use https/],
    ['ftp://cdn.example.test/a.mp4', /must use https/],
    ['https://127.0.0.1/a.mp4', /non-public address \(127\.0\.0\.1, loopback\)/],
    ['https://localhost/a.mp4', /non-public address .*loopback/],
    ['https://10.1.2.3/a.mp4', /10\.1\.2\.3, private/],
    ['https://192.168.0.10/a.mp4', /192\.168\.0\.10, private/],
    ['https://172.16.5.4/a.mp4', /private/],
    ['https://169.254.169.254/latest/meta-data/', /169\.254\.169\.254, linkLocal/],
    ['https://[::1]/a.mp4', /::1, loopback/],
    ['https://[::ffff:127.0.0.1]/a.mp4', /loopback/],
    ['https://[::ffff:10.0.0.1]/a.mp4', /private/],
    ['https://[fd00::5]/a.mp4', /uniqueLocal/],
    ['https://[fe80::1]/a.mp4', /linkLocal/],
    ['https://0.0.0.0/a.mp4', /unspecified/],
    ['https://100.64.1.1/a.mp4', /carrierGradeNat/],
    ['https://0x7f000001/a.mp4', /127\.0\.0\.1, loopback/], // odd spellings are normalised first
    ['https://2130706433/a.mp4', /127\.0\.0\.1, loopback/],
    ['https://internal.example.test/a.mp4', /10\.0\.0\.7, private/],
    ['https://mixed.example.test/a.mp4', /192\.168\.1\.20, private/], // every address, not the first
    ['https://metadata.example.test/a.mp4', /linkLocal/],
    ['https://mapped.example.test/a.mp4', /loopback/],
    ['https://nowhere.example.test/a.mp4', /host nowhere\.example\.test could not be resolved/],
    ['https://user:pw@cdn.example.test/a.mp4', /user name or password/],
    ['not a url', /not a valid URL/],
  ])('%s is refused', async (url, why) => {
    expect(await refused(url)).toMatch(why);
  });

  test('localhost names are refused by name, whatever a resolver would answer', async () => {
    const system = { ...strict, resolve: undefined };
    expect(await refused('https://localhost./a.mp4', system)).toMatch(/loopback/);
    expect(await refused('https://api.localhost/a.mp4', system)).toMatch(/loopback/);
  });

  test('public addresses pass', async () => {
    expect(await refused('https://cdn.example.test/a.mp4')).toBe('allowed');
    expect(await refused('https://v6.example.test/a.mp4')).toBe('allowed');
    expect(await refused(`https://${PUBLIC_IP}/a.mp4`)).toBe('allowed');
  });

  test('with private URLs allowed, http and loopback pass', async () => {
    expect(await refused('http://127.0.0.1:8080/a.mp4', { ...strict, allowPrivate: true })).toBe('allowed');
    expect(await refused('https://[::1]/a.mp4', { ...strict, allowPrivate: true })).toBe('allowed');
  });

  test('address classification', () => {
    expect(privateAddressReason('8.8.8.8')).toBeNull();
    expect(privateAddressReason('::ffff:8.8.8.8')).toBeNull();
    expect(privateAddressReason('64:ff9b::a00:1')).toBe('rfc6052'); // NAT64 wrapping 10.0.0.1
    expect(privateAddressReason('2002:a00:1::')).toBe('6to4');
  });

  test('IPv4-compatible, local-use NAT64, site-local and discard IPv6 ranges are refused', async () => {
    expect(privateAddressReason('::a00:1')).toBe('ipv4Compatible'); // ::10.0.0.1
    expect(privateAddressReason('::7f00:1')).toBe('ipv4Compatible'); // ::127.0.0.1
    expect(privateAddressReason('::10.0.0.1')).not.toBeNull();
    expect(privateAddressReason('64:ff9b:1::a00:1')).toBe('nat64LocalUse');
    expect(privateAddressReason('fec0::1')).toBe('siteLocal');
    expect(privateAddressReason('feff::1')).toBe('siteLocal');
    expect(privateAddressReason('100::1')).not.toBeNull();
    expect(privateAddressReason('2606:4700::1')).toBeNull();
    for (const url of ['https://[::10.0.0.1]/a.mp4', 'https://[64:ff9b:1::a00:1]/a.mp4', 'https://[fec0::1]/a.mp4']) {
      expect(await refused(url)).toMatch(/non-public address/);
    }
  });
});

describe('inspectReferences refuses private targets before connecting', () => {
  test.each([
    ['http on loopback', (o: string) => `${o}/files/video-1s.mp4`, /must use https/],
    ['https on loopback', (o: string) => `${o.replace('http:', 'https:')}/files/video-1s.mp4`, /127\.0\.0\.1, loopback/],
    ['localhost by name', (o: string) => `${o.replace('http:', 'https:').replace('127.0.0.1', 'localhost')}/files/video-1s.mp4`, /loopback/],
  ])('%s', async (_what, make, why) => {
    const e = await inspectReferences([urlRef('video', make(srv.origin), 'media[3].url')], strict).then(() => null, (x: unknown) => x);
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).details![0]).toEqual({ path: 'media[3].url', message: expect.stringMatching(why) });
    expect(srv.sent.size).toBe(0); // the local server was never reached
  });
});

describe('redirects are checked hop by hop', () => {
  // A stand-in for the network: the first (public) host answers with a redirect.
  function fakeHop(location: string): { hop: Hop; calls: string[] } {
    const calls: string[] = [];
    const hop: Hop = async (url, addresses) => {
      calls.push(`${url.href} @ ${addresses.map((a) => a.address).join(',')}`);
      const res = new http.IncomingMessage(null as never);
      res.statusCode = 302;
      res.headers = { location };
      return res;
    };
    return { hop, calls };
  }

  test.each([
    ['a private address', 'https://10.20.30.40/secret', /10\.20\.30\.40, private/],
    ['a name resolving to a private address', 'https://internal.example.test/secret', /10\.0\.0\.7, private/],
    ['the metadata endpoint', 'https://169.254.169.254/latest/meta-data/', /linkLocal/],
    ['loopback IPv6', 'https://[::1]:6379/', /loopback/],
    ['plain http', 'http://cdn.example.test/a.mp4', /must use https/],
  ])('a redirect from a public URL to %s is refused', async (_what, location, why) => {
    const { hop, calls } = fakeHop(location);
    const ctl = new AbortController();
    const err = await safeFetch('https://cdn.example.test/v.mp4', strict, { signal: ctl.signal }, hop).then(() => null, (e: Error) => e);
    expect(err?.message).toMatch(why);
    // Only the public hop was made, to the address that was checked.
    expect(calls).toEqual([`https://cdn.example.test/v.mp4 @ ${PUBLIC_IP}`]);
  });

  test('end to end: a redirect to a private URL is refused even when the first URL was allowed', async () => {
    // allowPrivate on for the first hop would defeat the point, so the first host is the fake
    // public one and the redirect target is the real local server.
    const { hop } = fakeHop(`${srv.origin.replace('http:', 'https:')}/files/video-1s.mp4`);
    const ctl = new AbortController();
    const err = await safeFetch('https://cdn.example.test/v.mp4', strict, { signal: ctl.signal }, hop).then(() => null, (e: Error) => e);
    expect(err?.message).toMatch(/127\.0\.0\.1, loopback/);
    expect(srv.sent.size).toBe(0);
  });
});

describe('the connection goes to the checked address only', () => {
  test('a host name is connected to the address the resolver gave, with no second lookup', async () => {
    let lookups = 0;
    const port = new URL(srv.origin).port;
    const policy: MediaPolicy = {
      ...strict,
      allowPrivate: true,
      resolve: async (host) => {
        lookups++;
        if (host !== 'media.example.test') throw new Error('unexpected host');
        return [{ address: '127.0.0.1', family: 4 }];
      },
    };
    const r = await inspectReferences([urlRef('video', `http://media.example.test:${port}/files/video-12.5s.mp4`)], policy);
    expect(r.measured.videoSeconds).toEqual([12.5]);
    expect(lookups).toBe(1); // one request, one resolution; .test names do not exist in real DNS
  });

  test('every checked address is tried: an unreachable first address falls back to the next', async () => {
    const port = new URL(srv.origin).port;
    const policy: MediaPolicy = {
      ...strict,
      allowPrivate: true,
      // ::1 is not listened on by the test server (it binds 127.0.0.1 only).
      resolve: async () => [{ address: '::1', family: 6 }, { address: '127.0.0.1', family: 4 }],
    };
    const r = await inspectReferences([urlRef('video', `http://dual.example.test:${port}/files/video-1s.mp4`)], policy);
    expect(r.measured.videoSeconds).toEqual([1]);
  });

  test('pinnedRequest ignores what the system resolver would say about the name', async () => {
    const port = new URL(srv.origin).port;
    const ctl = new AbortController();
    const res = await pinnedRequest(new URL(`http://rebind.example.test:${port}/files/image.png`), [{ address: '127.0.0.1', family: 4 }], {}, ctl.signal);
    expect(res.statusCode).toBe(200);
    res.destroy();
  });
});

describe('the development switch', () => {
  test('ALLOW_PRIVATE_MEDIA_URLS is refused in production', () => {
    expect(() => mediaPolicyFromConfig({ NODE_ENV: 'production', ALLOW_PRIVATE_MEDIA_URLS: true })).toThrow(/refused in production/);
    expect(mediaPolicyFromConfig({ NODE_ENV: 'production', ALLOW_PRIVATE_MEDIA_URLS: false }).allowPrivate).toBe(false);
    expect(mediaPolicyFromConfig({ NODE_ENV: 'test', ALLOW_PRIVATE_MEDIA_URLS: true }).allowPrivate).toBe(true);
  });
});
