// A reference-file server that lies, on loopback only, for scripts/fuzz.ts: each path is one way a
// client's own server can try to hurt the gateway that fetches from it.
import fs from 'node:fs';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

const FIXTURES = path.resolve(__dirname, '../../packages/media/test/fixtures');
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name));

export const HOSTILE_PATHS = [
  'lying-range.webm', // 206 with `Content-Range: bytes a-b/*` for every range: never ends
  'huge-total.mp4', // 206 claiming a total of a petabyte
  'endless.mp4', // 200, chunked, an mdat that never ends
  'drip.mp3', // headers, then a byte every 300 ms
  'redirect-loop.mp4', // 302 to itself
  'redirect-chain.mp4', // 302 -> 302 -> 302 -> 302 -> ok
  'gzip-bomb.mp4', // Content-Encoding: gzip over 64 MB of zeros though identity was asked
  'garbage.mp4', // random bytes
  'html.mp4', // an HTML page
  'ok.mp4', // a real 3 s clip: the submit is created and charged
  'ok.mp3', // a real 2 s MP3 (audio reference)
  'status-500.mp4',
  'empty.mp4',
  'lying.wav', // a WAV whose header says 1 s over 20 s of samples (lip-sync audio is capped at 15 s)
  'switch.png', // one picture for the first visitor, another for everyone after
  'bomb.png', // a PNG header claiming 100,000 x 100,000 pixels
  'huge-length.mp4', // Content-Length of a terabyte, then a trickle
] as const;

export async function startHostileServer(): Promise<{ base: string; close(): Promise<void> }> {
  const webmHead = fixture('video-2s.webm').subarray(0, 4096);
  const okMp4 = fixture('video-3s.mp4');
  const okMp3 = fixture('audio-2s.mp3');
  const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
  const timers = new Set<NodeJS.Timeout>();
  const png = fixture('image.png');
  const jpg = fixture('image.jpg');
  const bombPng = Buffer.from(png);
  bombPng.writeUInt32BE(100_000, 16);
  bombPng.writeUInt32BE(100_000, 20);
  const lyingWav = Buffer.alloc(44 + 20 * 8000, 128);
  lyingWav.write('RIFF', 0, 'latin1');
  lyingWav.writeUInt32LE(36 + 8000, 4);
  lyingWav.write('WAVEfmt ', 8, 'latin1');
  lyingWav.writeUInt32LE(16, 16);
  lyingWav.writeUInt16LE(1, 20);
  lyingWav.writeUInt16LE(1, 22);
  lyingWav.writeUInt32LE(8000, 24);
  lyingWav.writeUInt32LE(8000, 28);
  lyingWav.writeUInt16LE(1, 32);
  lyingWav.writeUInt16LE(8, 34);
  lyingWav.write('data', 36, 'latin1');
  lyingWav.writeUInt32LE(8000, 40); // "1 s"
  let switchHits = 0;
  const server = http.createServer((req, res) => {
    res.on('error', () => undefined);
    const name = (req.url ?? '/').split('?')[0].slice(1);
    const range = /bytes=(\d+)-(\d+)?/.exec(req.headers.range ?? '');
    switch (name) {
      case 'lying-range.webm': {
        const start = range ? Number(range[1]) : 0;
        const end = range?.[2] ? Number(range[2]) : start + 65535;
        const body = Buffer.alloc(Math.min(end - start + 1, 1 << 20));
        if (start === 0) webmHead.copy(body);
        res.writeHead(206, { 'Content-Range': `bytes ${start}-${start + body.length - 1}/*`, 'Content-Length': body.length });
        return void res.end(body);
      }
      case 'huge-total.mp4': {
        const start = range ? Number(range[1]) : 0;
        const body = start === 0 ? okMp4.subarray(0, 65536) : Buffer.alloc(65536);
        res.writeHead(206, { 'Content-Range': `bytes ${start}-${start + body.length - 1}/1000000000000000`, 'Content-Length': body.length });
        return void res.end(body);
      }
      case 'endless.mp4': {
        res.writeHead(200, { 'Content-Type': 'video/mp4' });
        res.write(okMp4.subarray(0, 32)); // ftyp
        const chunk = Buffer.alloc(64 * 1024, 7);
        const pump = () => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once('drain', pump);
        };
        return pump();
      }
      case 'drip.mp3': {
        res.writeHead(200, { 'Content-Type': 'audio/mpeg' });
        let i = 0;
        const t = setInterval(() => {
          if (res.destroyed || i >= okMp3.length) {
            clearInterval(t);
            timers.delete(t);
            return void res.end();
          }
          res.write(okMp3.subarray(i, ++i));
        }, 300);
        timers.add(t);
        return;
      }
      case 'redirect-loop.mp4':
        return void res.writeHead(302, { Location: '/redirect-loop.mp4' }).end();
      case 'redirect-chain.mp4': {
        const n = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('n') ?? 0);
        return void res.writeHead(302, { Location: n >= 4 ? '/ok.mp4' : `/redirect-chain.mp4?n=${n + 1}` }).end();
      }
      case 'gzip-bomb.mp4':
        res.writeHead(200, { 'Content-Type': 'video/mp4', 'Content-Encoding': 'gzip', 'Content-Length': bomb.length });
        return void res.end(bomb);
      case 'garbage.mp4': {
        const b = Buffer.alloc(200_000);
        for (let i = 0; i < b.length; i++) b[i] = (i * 2654435761) >>> 24;
        res.writeHead(200, { 'Content-Type': 'video/mp4', 'Content-Length': b.length });
        return void res.end(b);
      }
      case 'html.mp4':
        return void res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html><body>not a video</body></html>');
      case 'ok.mp4':
      case 'ok.mp3': {
        const all = name === 'ok.mp4' ? okMp4 : okMp3;
        if (range) {
          const start = Number(range[1]);
          const end = Math.min(range[2] ? Number(range[2]) : all.length - 1, all.length - 1);
          if (start >= all.length) return void res.writeHead(416, { 'Content-Range': `bytes */${all.length}` }).end();
          res.writeHead(206, { 'Content-Range': `bytes ${start}-${end}/${all.length}`, 'Content-Length': end - start + 1 });
          return void res.end(all.subarray(start, end + 1));
        }
        res.writeHead(200, { 'Content-Length': all.length });
        return void res.end(all);
      }
      case 'ok.png': {
        const png = fixture('image.png');
        res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': png.length });
        return void res.end(png);
      }
      case 'lying.wav':
        res.writeHead(200, { 'Content-Type': 'audio/wav', 'Content-Length': lyingWav.length });
        return void res.end(lyingWav);
      case 'switch.png': {
        const img = switchHits++ === 0 ? png : jpg;
        res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': img.length });
        return void res.end(img);
      }
      case 'bomb.png':
        res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': bombPng.length });
        return void res.end(bombPng);
      case 'huge-length.mp4': {
        res.writeHead(200, { 'Content-Type': 'video/mp4', 'Content-Length': String(2 ** 40) });
        const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write(Buffer.alloc(1024))), 200);
        timers.add(t);
        return;
      }
      case 'status-500.mp4':
        return void res.writeHead(500).end('boom');
      case 'empty.mp4':
        return void res.writeHead(200, { 'Content-Length': 0 }).end();
      default:
        return void res.writeHead(404).end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      for (const t of timers) clearInterval(t);
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
