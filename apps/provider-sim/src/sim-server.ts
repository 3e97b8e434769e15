// The provider simulator's HTTP surface. Each configured channel is a separate "provider" under
// /ch/<channelId>, speaking the http-jobs protocol of packages/providers. Plain node:http rather
// than Express: in benchmarks it answers thousands of polls a second on a shared 2-core machine.
import http, { IncomingMessage, ServerResponse } from 'node:http';
import type { Channel, ChannelConfig } from '@mediagen/providers';
import { parseDirectives } from './directives';
import { imageSize, mp4File, pngFile } from './media-files';
import { RenderStore } from './render-store';

export interface SimOptions {
  channels: ChannelConfig;
  /** Render time when the prompt has no #sim:delay. */
  renderMs: number;
  /** Added to every provider answer. */
  latencyMs: number;
}

const MAX_BODY = 1 << 20;
const sleep = (ms: number) => (ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve());

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const data = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': String(data.length), ...headers });
  res.end(data);
}
const fail = (res: ServerResponse, status: number, code: string, message: string, headers?: Record<string, string>) =>
  send(res, status, { error: { code, message } }, headers);

async function readJson(req: IncomingMessage): Promise<Record<string, unknown> | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY) return null;
    chunks.push(c as Buffer);
  }
  try {
    const v = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

export function createSimServer(opts: SimOptions): { server: http.Server; store: RenderStore } {
  const store = new RenderStore();
  const channels = new Map<string, Channel>(opts.channels.channels.map((c) => [c.id, c]));
  const sweeper = setInterval(() => store.sweep(), 60_000);
  sweeper.unref();

  const outputUrl = (req: IncomingMessage, channelId: string, id: string, n: number) =>
    `http://${req.headers.host ?? '127.0.0.1'}/ch/${channelId}/v1/jobs/${id}/output/${n}`;

  const handleChannel = async (req: IncomingMessage, res: ServerResponse, channel: Channel, rest: string[]): Promise<void> => {
    await sleep(opts.latencyMs);
    // POST /v1/jobs
    if (req.method === 'POST' && rest.length === 2 && rest[0] === 'v1' && rest[1] === 'jobs') {
      if (req.headers.authorization !== `Bearer ${channel.apiKey}`) return fail(res, 401, 'unauthorized', 'Invalid API key.');
      const body = await readJson(req);
      if (!body) return fail(res, 400, 'invalid_request', 'Body must be a JSON object.');
      const type = body.type === 'image' || body.type === 'video' ? body.type : undefined;
      if (!type || typeof body.model !== 'string' || !Object.values(channel.models).includes(body.model))
        return fail(res, 400, 'invalid_request', 'Unknown model or type.');
      const ref = typeof body.client_ref === 'string' && body.client_ref ? body.client_ref : `anon-${Date.now()}-${Math.random()}`;
      const directives = parseDirectives(body.prompt);
      const refusal = store.countCall(ref, directives);
      if (refusal === 429) return fail(res, 429, 'rate_limited', 'Slow down.', { 'Retry-After': '1' });
      if (refusal === 503) return fail(res, 503, 'unavailable', 'Try again later.');
      const key = req.headers['idempotency-key'];
      const { render, replay } = store.submit(channel.id, typeof key === 'string' ? key : undefined, {
        ref, type, ratio: body.ratio, resolution: body.resolution, renderMs: directives.delayMs ?? opts.renderMs, directives,
      });
      // The render already exists while the answer is delayed: the window in which a crashed
      // client has started a render it has no id for (the idempotency key recovers it).
      await sleep(directives.slowSubmitMs);
      return send(res, replay ? 200 : 201, { id: render.id, status: 'queued' });
    }
    const [v1, jobs, id, output, n] = rest;
    if (v1 !== 'v1' || jobs !== 'jobs' || !id) return fail(res, 404, 'not_found', 'No such route.');
    const render = store.get(channel.id, id);
    if (!render) return fail(res, 404, 'not_found', 'No such render.');
    const refusal = store.countCall(render.ref, render.directives);
    if (refusal === 429) return fail(res, 429, 'rate_limited', 'Slow down.', { 'Retry-After': '1' });
    if (refusal === 503) return fail(res, 503, 'unavailable', 'Try again later.');
    const view = store.view(render, channel.reportsViolations);

    // GET /v1/jobs/:id
    if (req.method === 'GET' && rest.length === 3) {
      if (req.headers.authorization !== `Bearer ${channel.apiKey}`) return fail(res, 401, 'unauthorized', 'Invalid API key.');
      if (view.status === 'running') return send(res, 200, { id, status: 'running', progress: view.progress });
      if (view.status === 'failed') return send(res, 200, { id, status: 'failed', error: { code: view.code, message: view.message } });
      const contentType = render.directives.badFile ? 'text/html' : render.type === 'image' ? 'image/png' : 'video/mp4';
      const outputs = Array.from({ length: view.outputs }, (_, i) => ({ url: outputUrl(req, channel.id, id, i), content_type: contentType }));
      return send(res, 200, { id, status: 'succeeded', progress: 100, outputs });
    }
    // GET /v1/jobs/:id/output/:n (the URL is the credential, as with signed download links)
    if (req.method === 'GET' && rest.length === 5 && output === 'output') {
      if (view.status !== 'succeeded' || Number(n) !== 0 || view.outputs === 0) return fail(res, 404, 'not_found', 'No such output.');
      let file: Buffer;
      let contentType: string;
      if (render.directives.badFile) [file, contentType] = [Buffer.from('<html><body>Internal error</body></html>'), 'text/html'];
      else if (render.type === 'image') {
        const { width, height } = imageSize(render.ratio, render.resolution);
        [file, contentType] = [pngFile(width, height), 'image/png'];
      } else [file, contentType] = [mp4File(render.ratio, render.resolution), 'video/mp4'];
      res.writeHead(200, { 'Content-Type': contentType, 'Content-Length': String(file.length) });
      return void res.end(file);
    }
    return fail(res, 405, 'method_not_allowed', 'Method not allowed.');
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://sim');
    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    const route = async () => {
      if (parts[0] === 'healthz') return send(res, 200, { ok: true });
      if (parts[0] === 'stats' && parts.length === 1) return send(res, 200, { ...store.totals, inFlight: store.inFlight() });
      if (parts[0] === 'stats' && parts[1] === 'refs' && parts[2]) return send(res, 200, store.refSummary(parts[2]));
      if (parts[0] === 'ch' && parts[1]) {
        const channel = channels.get(parts[1]);
        if (!channel) return fail(res, 404, 'not_found', 'No such channel.');
        return handleChannel(req, res, channel, parts.slice(2));
      }
      return fail(res, 404, 'not_found', 'No such route.');
    };
    route().catch((err) => {
      if (!res.headersSent) fail(res, 500, 'internal', String((err as Error)?.message ?? err));
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 30_000;
  server.on('close', () => clearInterval(sweeper));
  return { server, store };
}
