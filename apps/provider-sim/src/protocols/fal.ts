// The fal queue as the simulator speaks it (mount `fal`; channel baseUrl `{sim}/fal`):
//   POST /{owner}/{app}[/...]?fal_webhook=URL     -> {request_id, status_url, response_url, cancel_url}
//   GET  /{owner}/{app}/requests/{id}/status      -> IN_QUEUE | IN_PROGRESS | COMPLETED
//   GET  /{owner}/{app}/requests/{id}             -> output, 400 "still in progress", or the error body
//   PUT  /{owner}/{app}/requests/{id}/cancel
//   GET  /.well-known/jwks.json                   -> the simulator's webhook key (point webhookJwksUrl here)
// Finished renders are announced to `fal_webhook`, signed with ED25519 like fal's own webhooks.
// Directives in fal's signals: 429 with Retry-After, 503 runner_scheduling_failure, violation =
// COMPLETED whose result is 422 content_policy_violation, fail = 500 runner error body with
// X-Fal-Retryable: false, no-file = 422 no_media_generated, violation-input = 422
// content_policy_violation on submit, lost = 404 for the task's first request, expired = the CDN
// file is gone (404 on download). A retired app answers 404 "Application ... not found" on submit
// and is absent from `GET /platform/v1/models?endpoint_id=` (fal's model lookup, for the channel check).
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, KeyObject, sign } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Channel } from '@mediagen/providers';
import { parseDirectives } from '../directives';
import { mediaUrlPath } from '../media-path';
import { registerProtocol, SimContext } from '../protocol-registry';
import type { Render } from '../render-store';
import { postHook, readJson, requestKey, send, sleep } from '../sim-http';
import { isLost, promptRef } from './gemini';

/**
 * The webhook signing key: SimOptions.falWebhookKey (SIM_FAL_WEBHOOK_KEY, a PKCS#8 PEM Ed25519
 * private key) when set, so a fixed key can be published; otherwise one made at start. Either way
 * its public half is served at /fal/.well-known/jwks.json. Parsed when used: a simulator signs a
 * few webhooks, and no per-server state is kept here.
 */
const startKey: KeyObject = generateKeyPairSync('ed25519').privateKey;
const signingKey = (ctx: SimContext): KeyObject => (ctx.opts.falWebhookKey ? createPrivateKey(ctx.opts.falWebhookKey) : startKey);
const jwks = (ctx: SimContext) => ({ keys: [{ ...createPublicKey(signingKey(ctx)).export({ format: 'jwk' }), kid: 'sim', use: 'sig', alg: 'EdDSA' }] });
const USER_ID = 'sim-user';

const detail = (res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>) => send(res, status, body, headers);

/** Our model id served by this app path (its type decides image or video). */
function servedModel(channel: Channel, path: string): string | undefined {
  return Object.entries(channel.models).find(([, app]) => path === app || path.startsWith(`${app}/`))?.[0];
}

/** The result endpoint's answer for a render: [HTTP status, body, headers]. */
function result(ctx: SimContext, channel: Channel, render: Render, origin: string): [number, unknown, Record<string, string>?] {
  const view = ctx.store.view(render, channel.reportsViolations);
  if (view.status === 'running') return [400, { detail: 'Request is still in progress' }];
  if (view.status === 'cancelled') return [400, { detail: 'Request was cancelled' }];
  if (view.status === 'failed' && view.code === 'content_policy')
    return [422, { detail: [{ loc: ['body', 'prompt'], msg: 'The content was flagged by a content checker.', type: 'content_policy_violation' }] }];
  if (view.status === 'failed') return [500, { detail: 'The runner failed while processing the request.', error_type: 'runner_disconnected' }, { 'X-Fal-Retryable': 'false' }];
  if (view.outputs === 0) return [422, { detail: [{ loc: ['body'], msg: 'The model did not generate any media.', type: 'no_media_generated' }] }];
  // An expired file: the URL names no render, so the shared /media route answers 404.
  const url = `${origin}${mediaUrlPath(render.directives.expired ? `expired-${render.id}` : render.id, 0)}`;
  const contentType = render.directives.badFile ? 'text/html' : render.type === 'image' ? 'image/png' : 'video/mp4';
  return [200, render.type === 'image' ? { images: [{ url, content_type: contentType }] } : { video: { url, content_type: contentType } }];
}

function queueStatus(ctx: SimContext, channel: Channel, render: Render): string {
  const view = ctx.store.view(render, channel.reportsViolations);
  if (view.status !== 'running') return 'COMPLETED';
  return view.progress < 10 ? 'IN_QUEUE' : 'IN_PROGRESS';
}

/** Posts fal's webhook body, signed, to the URL given at submit (best effort, one retry). */
async function deliver(ctx: SimContext, channel: Channel, render: Render, hook: string, origin: string): Promise<void> {
  const [status, payload] = result(ctx, channel, render, origin);
  const body = Buffer.from(
    JSON.stringify({
      request_id: render.id, gateway_request_id: render.id, status: status === 200 ? 'OK' : 'ERROR', payload,
      ...(status === 200 ? {} : { error: `Invalid status code: ${status}` }),
    }),
  );
  for (let attempt = 0; attempt < 2; attempt++) {
    const ts = String(Math.floor(Date.now() / 1000));
    const message = [render.id, USER_ID, ts, createHash('sha256').update(body).digest('hex')].join('\n');
    try {
      const status = await postHook(
        hook,
        {
          'Content-Type': 'application/json',
          'X-Fal-Webhook-Request-Id': render.id,
          'X-Fal-Webhook-User-Id': USER_ID,
          'X-Fal-Webhook-Timestamp': ts,
          'X-Fal-Webhook-Signature': sign(null, Buffer.from(message), signingKey(ctx)).toString('hex'),
        },
        body,
      );
      if (status >= 200 && status < 300) return;
    } catch {
      /* retried once below */
    }
    await sleep(500);
  }
}

registerProtocol({
  protocol: 'fal',
  mount: 'fal',
  async handle(ctx, { req, res, url, rest }) {
    await sleep(ctx.opts.latencyMs);
    if (req.method === 'GET' && rest.join('/') === '.well-known/jwks.json') return send(res, 200, jwks(ctx));
    const channel = ctx.channelByKey(requestKey(req, url));
    if (!channel || !/^Key /i.test(String(req.headers.authorization ?? ''))) return detail(res, 401, { detail: 'Invalid API key' });
    const origin = ctx.origin(req);
    const reqIdx = rest.indexOf('requests');
    // fal's platform API model lookup (channel platformUrl `{sim}/fal/platform/v1`): the check's probe.
    if (req.method === 'GET' && rest.join('/') === 'platform/v1/models') {
      const app = url.searchParams.get('endpoint_id') ?? '';
      const found = ctx.hasModel(channel, app) ? [{ endpoint_id: app, metadata: { display_name: app, status: 'active' } }] : [];
      return send(res, 200, { models: found, has_more: false, next_cursor: null });
    }

    if (req.method === 'POST' && reqIdx === -1) {
      const path = rest.join('/');
      const model = servedModel(channel, path);
      const app = model ? channel.models[model] : undefined;
      if (!model || !app || !ctx.hasModel(channel, app)) return detail(res, 404, { detail: `Application ${path} not found` });
      const body = await readJson(req);
      if (!body) return detail(res, 422, { detail: [{ loc: ['body'], msg: 'Invalid JSON', type: 'value_error' }] });
      const directives = parseDirectives(body.prompt);
      const ref = promptRef(body.prompt);
      const refusal = ctx.store.countCall(ref, directives);
      if (refusal === 429) return detail(res, 429, { detail: 'Rate limit exceeded' }, { 'Retry-After': '1' });
      if (refusal === 503)
        return detail(res, 503, { detail: 'No runner could be scheduled.', error_type: 'runner_scheduling_failure' }, { 'X-Fal-Error-Type': 'runner_scheduling_failure', 'X-Fal-Retryable': 'true' });
      if (directives.violationInput)
        return detail(res, 422, { detail: [{ loc: ['body', 'prompt'], msg: 'The prompt was flagged by a content checker.', type: 'content_policy_violation' }] });
      const isImage = model.startsWith('image-');
      const duration = typeof body.duration === 'string' ? parseInt(body.duration, 10) : body.duration;
      const { render } = ctx.store.submit(channel.id, undefined, {
        ref, type: isImage ? 'image' : 'video', model: path, ratio: body.aspect_ratio, resolution: isImage ? String(body.resolution ?? '1K').toLowerCase() : (body.resolution ?? '720p'),
        duration: duration ?? 8, renderMs: directives.delayMs ?? ctx.opts.renderMs, directives,
      });
      const hook = url.searchParams.get('fal_webhook');
      if (hook) ctx.store.whenFinished(render, (r) => void deliver(ctx, channel, r, hook, origin));
      await sleep(directives.slowSubmitMs);
      const root = `${origin}/fal/${rest.slice(0, 2).join('/')}/requests/${render.id}`;
      return send(res, 200, { status: 'IN_QUEUE', request_id: render.id, gateway_request_id: render.id, response_url: root, status_url: `${root}/status`, cancel_url: `${root}/cancel`, queue_position: 0 });
    }

    // /{owner}/{app}/requests/{id}[/status|/cancel]
    if (reqIdx !== 2) return detail(res, 404, { detail: 'Not found' });
    const [id, action] = rest.slice(3);
    const render = id ? ctx.store.get(channel.id, id) : undefined;
    if (!render || !render.model?.startsWith(rest.slice(0, 2).join('/')) || isLost(ctx, render)) return detail(res, 404, { detail: 'Request not found' });
    const refusal = ctx.store.countCall(render.ref, render.directives);
    if (refusal === 429) return detail(res, 429, { detail: 'Rate limit exceeded' }, { 'Retry-After': '1' });
    if (refusal === 503) return detail(res, 503, { detail: 'Service unavailable', error_type: 'internal_error' });
    if (req.method === 'GET' && action === 'status') {
      const status = queueStatus(ctx, channel, render);
      return send(res, 200, { status, request_id: render.id, response_url: `${origin}/fal/${rest.slice(0, 2).join('/')}/requests/${render.id}`, ...(status === 'COMPLETED' ? { metrics: { inference_time: render.renderMs / 1000 } } : {}), ...(status === 'IN_QUEUE' ? { queue_position: 0 } : {}) });
    }
    if (req.method === 'GET' && action === undefined) {
      const [status, body, headers] = result(ctx, channel, render, origin);
      return send(res, status, body, headers);
    }
    if (req.method === 'PUT' && action === 'cancel') {
      if (queueStatus(ctx, channel, render) === 'COMPLETED') return send(res, 400, { status: 'ALREADY_COMPLETED' });
      ctx.store.cancel(channel.id, render.id);
      return send(res, 202, { status: 'CANCELLATION_REQUESTED' });
    }
    return detail(res, 405, { detail: 'Method not allowed' });
  },
});
