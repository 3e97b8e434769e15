// Floor for the gateway's range downloads: a bare node:http server answering `Range: bytes=a-b`
// for files under ROOT with fs.createReadStream piped into the response, and nothing else (no
// Express, auth, rate limits, result gate, storage layer or sidecar). GET /healthz answers ok.
// Serves until SIGTERM; the bench samples its RSS like the gateway's.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream';

const root = path.resolve(process.env.ROOT!);
const server = http.createServer((req, res) => {
  if (req.url === '/healthz') return void res.end('ok');
  const file = path.join(root, decodeURIComponent((req.url ?? '/').split('?')[0]));
  if (!file.startsWith(root + path.sep)) return void res.writeHead(404).end();
  fs.stat(file, (err, st) => {
    if (err) return void res.writeHead(404).end();
    const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    const [start, end] = m ? [Number(m[1]), Math.min(Number(m[2]), st.size - 1)] : [0, st.size - 1];
    res.writeHead(m ? 206 : 200, {
      'Content-Type': 'video/mp4',
      'Content-Length': String(end - start + 1),
      ...(m ? { 'Content-Range': `bytes ${start}-${end}/${st.size}` } : {}),
    });
    pipeline(fs.createReadStream(file, { start, end }), res, () => undefined);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
