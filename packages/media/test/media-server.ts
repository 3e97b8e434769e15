// A local stand-in for the internet's media hosts: serves the fixtures with and without Range
// support, redirects, error statuses and deliberately slow answers, and counts the bytes it sent
// so tests can prove the inspector reads only what it needs.

import http from 'node:http';
import https from 'node:https';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { MediaRef } from '@mediagen/catalog';

export const FIXTURES = path.join(__dirname, 'fixtures');
export const fixture = (name: string): Buffer => readFileSync(path.join(FIXTURES, name));

export interface MediaServer {
  origin: string;
  /** Bytes of body sent, requests answered and answers closed (sent or hung up on), per request path (without query). */
  sent: Map<string, { bytes: number; requests: number; closed: number }>;
  close(): Promise<void>;
}

const RANGE = /^bytes=(\d+)-(\d*)$/;

/** With `tls` (key and cert) it speaks https. */
export async function startMediaServer(tls?: { key: Buffer; cert: Buffer }): Promise<MediaServer> {
  const sent = new Map<string, { bytes: number; requests: number; closed: number }>();
  const sockets = new Set<import('node:net').Socket>();
  const handler: http.RequestListener = (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const stat = sent.get(url.pathname) ?? { bytes: 0, requests: 0, closed: 0 };
    stat.requests++;
    sent.set(url.pathname, stat);
    res.on('close', () => stat.closed++);
    const send = (status: number, headers: http.OutgoingHttpHeaders, body: Buffer) => {
      stat.bytes += body.length;
      res.writeHead(status, headers).end(body);
    };
    const [, route, ...rest] = url.pathname.split('/');
    const name = rest.join('/');

    if (route === 'files' || route === 'cut') {
      // A well-behaved host: honours single byte ranges. `cut` serves the first half of the file.
      const whole = fixture(name);
      const data = route === 'cut' ? whole.subarray(0, whole.length >> 1) : whole;
      const m = RANGE.exec(req.headers.range ?? '');
      if (!m) return send(200, { 'content-length': data.length, 'accept-ranges': 'bytes' }, data);
      const start = Number(m[1]);
      if (start >= data.length) return send(416, { 'content-range': `bytes */${data.length}` }, Buffer.alloc(0));
      const end = Math.min(m[2] ? Number(m[2]) : data.length - 1, data.length - 1);
      return send(206, { 'content-range': `bytes ${start}-${end}/${data.length}`, 'content-length': end - start + 1 }, data.subarray(start, end + 1));
    }
    if (route === 'norange') return send(200, { 'content-length': fixture(name).length, 'content-type': 'video/mp4' }, fixture(name));
    if (route === 'chunked') {
      // Range ignored and no Content-Length: the size is unknown until the end.
      const data = fixture(name);
      stat.bytes += data.length;
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      return res.end(data);
    }
    if (route === 'status') return send(Number(name), {}, Buffer.from('nope'));
    if (route === 'redirect') return send(302, { location: url.searchParams.get('to') ?? '/' }, Buffer.alloc(0));
    if (route === 'endless') {
      // Ignores Range and streams an MP4 whose media data never ends (bounded only by the reader).
      res.writeHead(200, { 'content-type': 'video/mp4' });
      const head = Buffer.concat([box('ftyp', Buffer.from('isom\0\0\0\0isom')), Buffer.from([0, 0, 0, 1]), Buffer.from('mdat'), Buffer.from([0, 0, 0, 1, 0, 0, 0, 0])]);
      res.write(head);
      const chunk = Buffer.alloc(64 * 1024, 7);
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) stat.bytes += chunk.length;
        if (!res.destroyed) res.once('drain', pump);
      };
      return pump();
    }
    if (route === 'drip') {
      // Headers at once, then one byte every 200 ms: never finishes within a deadline.
      const data = fixture(name);
      res.writeHead(200, { 'content-length': data.length });
      let i = 0;
      const t = setInterval(() => {
        if (res.destroyed || i >= data.length) return clearInterval(t);
        res.write(data.subarray(i, ++i));
        stat.bytes++;
      }, 200);
      res.on('close', () => clearInterval(t));
      return;
    }
    if (route === 'hang') return; // never answers, not even headers
    send(404, {}, Buffer.alloc(0));
  };
  const server = tls ? https.createServer(tls, handler) : http.createServer(handler);
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    sent,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function box(type: string, body: Buffer): Buffer {
  const size = Buffer.alloc(4);
  size.writeUInt32BE(8 + body.length);
  return Buffer.concat([size, Buffer.from(type, 'latin1'), body]);
}

export const urlRef = (kind: MediaRef['kind'], url: string, path = `media[0].url`): MediaRef => ({ kind, path, source: 'url', url, role: 'reference' });

export function inlineRef(kind: MediaRef['kind'], mime: string, bytes: Buffer, path = 'media[0].url'): MediaRef {
  const url = `data:${mime};base64,${bytes.toString('base64')}`;
  return { kind, path, source: 'inline', url, mime, inlineBytes: bytes.length, role: 'reference' };
}
