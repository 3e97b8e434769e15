// The simulator's own protocol (`http-jobs`, packages/providers/src/http-jobs): each channel is a
// separate "provider" under /ch/<channelId>:
//   POST /ch/<id>/v1/jobs                  -> {id, status}            (Idempotency-Key honoured)
//   GET  /ch/<id>/v1/jobs/<job>            -> {id, status, progress, outputs, error}
//   GET  /ch/<id>/v1/jobs/<job>/output/<n> -> the file (the URL is the credential, as with signed links)
// #sim:lost answers 404 for the task's first render, as a provider that restarted and forgot it.
import type { IncomingMessage } from 'node:http';
import { parseDirectives } from '../directives';
import { sendMedia } from '../media-route';
import { registerProtocol, SimContext } from '../protocol-registry';
import { fail, readJson, send, sleep } from '../sim-http';

registerProtocol({
  protocol: 'http-jobs',
  mount: 'ch',
  async handle(ctx: SimContext, { req, res, rest: path }) {
    const [channelId, ...rest] = path;
    const channel = ctx.channels.find((c) => c.id === channelId);
    if (!channel) return fail(res, 404, 'not_found', 'No such channel.');
    const { store, opts } = ctx;
    await sleep(opts.latencyMs);
    const outputUrl = (r: IncomingMessage, id: string, n: number) => `${ctx.origin(r)}/ch/${channel.id}/v1/jobs/${id}/output/${n}`;

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
        ref, type, ratio: body.ratio, resolution: body.resolution, duration: body.duration, model: body.model,
        renderMs: directives.delayMs ?? opts.renderMs, directives,
      });
      // The render already exists while the answer is delayed: the window in which a crashed
      // client has started a render it has no id for (the idempotency key recovers it).
      await sleep(directives.slowSubmitMs);
      return send(res, replay ? 200 : 201, { id: render.id, status: 'queued' });
    }
    const [v1, jobs, id, output, n] = rest;
    if (v1 !== 'v1' || jobs !== 'jobs' || !id) return fail(res, 404, 'not_found', 'No such route.');
    const render = store.get(channel.id, id);
    // #sim:lost: the provider forgot the task's first render (as after its restart): 404 on its id.
    const lost = render?.directives.lost && store.refSummary(render.ref).renders[0]?.id === render.id;
    if (!render || lost) return fail(res, 404, 'not_found', 'No such render.');
    const refusal = store.countCall(render.ref, render.directives);
    if (refusal === 429) return fail(res, 429, 'rate_limited', 'Slow down.', { 'Retry-After': '1' });
    if (refusal === 503) return fail(res, 503, 'unavailable', 'Try again later.');
    const view = store.view(render, channel.reportsViolations);

    // GET /v1/jobs/:id
    if (req.method === 'GET' && rest.length === 3) {
      if (req.headers.authorization !== `Bearer ${channel.apiKey}`) return fail(res, 401, 'unauthorized', 'Invalid API key.');
      if (view.status === 'running') return send(res, 200, { id, status: 'running', progress: view.progress });
      if (view.status === 'failed') return send(res, 200, { id, status: 'failed', error: { code: view.code, message: view.message } });
      if (view.status === 'cancelled') return send(res, 200, { id, status: 'failed', error: { code: 'cancelled', message: 'Cancelled.' } });
      const contentType = render.directives.badFile ? 'text/html' : render.type === 'image' ? 'image/png' : 'video/mp4';
      const outputs = Array.from({ length: view.outputs }, (_, i) => ({ url: outputUrl(req, id, i), content_type: contentType }));
      return send(res, 200, { id, status: 'succeeded', progress: 100, outputs });
    }
    // GET /v1/jobs/:id/output/:n
    if (req.method === 'GET' && rest.length === 5 && output === 'output') {
      if (view.status !== 'succeeded' || Number(n) !== 0 || view.outputs === 0) return fail(res, 404, 'not_found', 'No such output.');
      return sendMedia(render, res);
    }
    return fail(res, 405, 'method_not_allowed', 'Method not allowed.');
  },
});
