// Floor for the large-result download figures: the same bytes the simulator serves for a
// #sim:result-mib video, sent by a bare node:http server and written to files by COUNT concurrent
// bare node:http clients with stream.pipeline, in one process: no URL policy, sniffing, caps,
// storage layer, queue or database. DIR is where the copies go (removed at the end).
// Prints {"result": {...}} as its last line: MB/s over all copies, this process's RSS growth and
// CPU time (server and clients together: the simulator's and the worker's share in the figure).
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { mp4File, paddedBytes, paddedMp4 } from '@mediagen/provider-sim';
import { RssSampler, rssBytes } from '../lib/procs';

async function main(): Promise<void> {
  const count = Number(process.env.COUNT ?? 10);
  const mib = Number(process.env.MIB ?? 500);
  const dir = process.env.DIR!;
  fs.mkdirSync(dir, { recursive: true });
  const { head, padding } = paddedMp4(mp4File('16:9', '480p', 5), mib * 1024 * 1024);
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'video/mp4', 'Content-Length': String(head.length + padding) });
    void pipeline(Readable.from(paddedBytes(head, padding), { objectMode: false }), res).catch(() => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const idle = rssBytes(process.pid) ?? 0;
  const sampler = new RssSampler(process.pid, 50);
  const started = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  let bytes = 0;
  await Promise.all(
    Array.from({ length: count }, (_, i) =>
      new Promise<void>((resolve, reject) => {
        const file = path.join(dir, `copy-${i}.mp4`);
        http.get(url, (res) => {
          pipeline(res, fs.createWriteStream(file)).then(() => {
            bytes += fs.statSync(file).size;
            resolve();
          }, reject);
        }).on('error', reject);
      }),
    ),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  const { peak } = sampler.stop();
  server.close();
  fs.rmSync(dir, { recursive: true, force: true });
  console.log(JSON.stringify({ result: { bytes, seconds, mbPerS: bytes / 1e6 / seconds, rssIncrease: peak - idle, cpuMs: (cpu.user + cpu.system) / 1000 } }));
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
