// Server CPU per cached-poll answer, by how the answer is written (docs/benchmark.md, "The poll
// path"): a child process serves the gateway's poll fields (its security header list, the RateLimit
// fields, Content-Type, ETag, Content-Length) in one of three ways, or is the bench's bare Express
// route (bench/floors/express-floor.ts, the poll figure's floor), and this process drives it with
// undici, 32 connections each sending one request every 20 ms (a fixed pace, so that each mode
// does the same work per request on a busy machine), then reads the child's CPU time per request.
//   per-request      the field list built for each answer, writeHead, body as a Buffer (the lane until 2026-11-27)
//   field-list       one list per entry filled in place, writeHead, body as a string (the lane until 2026-11-28)
//   header-block     routes/poll-answer.ts: the header block built once per entry handed to the
//                    response, header block and body in one latin1 write, no writeHead
//   express          the bare Express 5 route of the poll floor: res.json of {status, type}
// The modes run in turn, ROUNDS times (default 5); the medians are printed last.
//   npx tsx bench/tools/poll-write.ts [rounds]
import { fork } from 'node:child_process';
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import express from 'express';
import { Pool } from 'undici';
import { securityHeaderFields } from '../../apps/gateway/src/middleware/security-headers';
import { buildPollAnswer, JSON_TYPE, writePollAnswer } from '../../apps/gateway/src/routes/poll-answer';

const MODES = ['per-request', 'field-list', 'header-block', 'express'] as const;
type Mode = (typeof MODES)[number];
const CONNECTIONS = 32;
const PACE_MS = 20;
const SECONDS = 4;

function serve(mode: Mode): void {
  const security = securityHeaderFields({ NODE_ENV: 'production' });
  const json = Buffer.from(JSON.stringify({ status: 'pending', type: 'image' }));
  const etag = 'W/"1f-2jmj7l5rSw0yVb/vlWAYkK/YBwk"';
  const answer = buildPollAnswer(json, security, etag);
  const text = json.toString('utf8'); // field-list's body, as the lane sent it until 2026-11-28
  let n = 0;
  let left = 1_000_000;
  const floor = express();
  floor.disable('x-powered-by');
  floor.get('/api/image/tasks/:taskId', (_req, res) => {
    res.json({ status: 'pending', type: 'image' });
  });
  const server = http.createServer((req, res) => {
    n++;
    if (mode === 'express') return floor(req, res);
    const id = randomUUID();
    const rate = `"per-account"; r=${left--}; t=42`;
    const policy = '"per-account"; q=1000000; w=60; pk=:MTIzNDU2Nzg5MGFi:';
    if (mode === 'per-request') {
      const headers = ['X-Request-Id', id, ...security, 'RateLimit', rate, 'RateLimit-Policy', policy, 'Content-Type', JSON_TYPE];
      headers.push('ETag', etag);
      headers.push('Content-Length', String(json.length));
      res.writeHead(200, headers);
      res.end(json);
    } else if (mode === 'header-block') {
      writePollAnswer(res, answer, id, rate, policy);
    } else {
      const f = answer.fields;
      f[1] = id;
      f[answer.rate] = rate;
      f[answer.rate + 2] = policy;
      res.writeHead(200, f);
      res.end(text);
    }
  });
  server.keepAliveTimeout = 65_000;
  let from = process.cpuUsage();
  process.on('message', (m) => {
    if (m === 'start') [from, n] = [process.cpuUsage(), 0];
    if (m === 'stop') {
      const c = process.cpuUsage(from);
      process.send!({ usPerRequest: (c.user + c.system) / n });
    }
  });
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as { port: number }).port }));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function measure(mode: Mode): Promise<{ rps: number; usPerRequest: number }> {
  const child = fork(__filename, ['serve', mode], { execArgv: ['--import', 'tsx'] });
  const port = await new Promise<number>((r) => child.once('message', (m: { port: number }) => r(m.port)));
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: CONNECTIONS });
  let stop = false;
  let done = 0;
  const loop = async () => {
    while (!stop) {
      const t = Date.now();
      const { body } = await pool.request({ path: '/api/image/tasks/t', method: 'GET' });
      await body.text();
      done++;
      const wait = PACE_MS - (Date.now() - t);
      if (wait > 0) await sleep(wait);
    }
  };
  const loops = Array.from({ length: CONNECTIONS }, loop);
  await sleep(1000); // warm-up
  child.send('start');
  const t0 = Date.now();
  done = 0;
  await sleep(SECONDS * 1000);
  const got = await new Promise<{ usPerRequest: number }>((r) => {
    child.once('message', r);
    child.send('stop');
  });
  const rps = done / ((Date.now() - t0) / 1000);
  stop = true;
  await Promise.allSettled(loops);
  await pool.close();
  child.kill();
  return { rps: Math.round(rps), usPerRequest: Number(got.usPerRequest.toFixed(2)) };
}

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 5);
  const all = Object.fromEntries(MODES.map((m) => [m, [] as number[]])) as Record<Mode, number[]>;
  for (let i = 0; i < rounds; i++) {
    for (const mode of MODES) {
      const r = await measure(mode);
      all[mode].push(r.usPerRequest);
      console.log(JSON.stringify({ round: i + 1, mode, ...r, load: (await import('node:os')).loadavg()[0].toFixed(1) }));
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(JSON.stringify({ medianUsPerRequest: Object.fromEntries(MODES.map((m) => [m, median(all[m])])) }));
}

if (process.argv[2] === 'serve') serve(process.argv[3] as Mode);
else void main();
