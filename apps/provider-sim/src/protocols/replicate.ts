// Replicate predictions as the simulator speaks them (mount `replicate`; channel baseUrl `{sim}/replicate/v1`):
//   POST /v1/models/{owner}/{name}/predictions | /v1/predictions   (Prefer: wait=N, Cancel-After honoured)
//   GET  /v1/predictions/{id}        POST /v1/predictions/{id}/cancel
//   GET  /v1/predictions             the list: {next, previous, results}, newest first, 100 a page, `cursor`
//   GET  /v1/webhooks/default/secret -> {key: whsec_...}
// Finished predictions are posted to `webhook`, signed per Standard Webhooks with that secret.
// Directives in Replicate's signals: 429 "... resets in ~1s" (no Retry-After header, as Replicate),
// 503, violation = failed with "flagged as sensitive (E005)", fail = failed with another error,
// no-file = succeeded with output null, violation-input = the prediction is created already failed
// with E005, lost = 404 for the task's first prediction, expired = the output was deleted (Replicate
// deletes API outputs after an hour): `data_removed` and a download that answers 404.
// The input of the models whose schema it knows (replicate.com API pages, 2026-11-27) is checked
// like Replicate's own validation, 422 "Input validation failed": an input the model does not name
// (another model's name for its reference images) or more images than it takes. Replicate may drop
// an unknown input silently instead; either way the images would not be used, so it fails here.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Channel } from '@mediagen/providers';
import { Webhook } from 'standardwebhooks';
import { parseDirectives } from '../directives';
import { mediaUrlPath } from '../media-path';
import { registerProtocol, SimContext } from '../protocol-registry';
import type { Render } from '../render-store';
import { postHook, readJson, requestKey, send, sleep } from '../sim-http';
import { isLost, promptRef } from './gemini';

/** The webhook signing secret: SimOptions.replicateWebhookSecret (SIM_REPLICATE_WEBHOOK_SECRET) when set, else one made at start. */
const START_SECRET = `whsec_${randomBytes(24).toString('base64')}`;
const webhookSecret = (ctx: SimContext): string => ctx.opts.replicateWebhookSecret ?? START_SECRET;

const problem = (res: ServerResponse, status: number, detail: string) => send(res, status, { detail, status, title: detail.split('.')[0] });

/** Input names and reference-image limits per model (a table of its own, not the adapter's). */
const SCHEMAS: Readonly<Record<string, { inputs: string[]; images?: [string, number] }>> = {
  'black-forest-labs/flux-1.1-pro': { inputs: ['prompt', 'image_prompt', 'aspect_ratio', 'width', 'height', 'safety_tolerance', 'seed', 'prompt_upsampling', 'output_format', 'output_quality'], images: ['image_prompt', 1] },
  'black-forest-labs/flux-2-pro': { inputs: ['prompt', 'input_images', 'aspect_ratio', 'resolution', 'width', 'height', 'safety_tolerance', 'seed', 'output_format', 'output_quality'], images: ['input_images', 8] },
  'google/nano-banana-pro': { inputs: ['prompt', 'image_input', 'aspect_ratio', 'resolution', 'output_format', 'safety_filter_level'], images: ['image_input', 14] },
  'bytedance/seedance-2.0': { inputs: ['prompt', 'image', 'last_frame_image', 'reference_images', 'reference_videos', 'reference_audios', 'duration', 'resolution', 'aspect_ratio', 'generate_audio', 'seed'], images: ['reference_images', 9] },
};

/** Replicate's 422 for an input its schema refuses, or null. */
export function replicateInputRefusal(model: string, input: Record<string, unknown>): { detail: string; field: string; type: string; description: string } | null {
  const schema = SCHEMAS[model.split(':')[0]];
  if (!schema) return null;
  const extra = Object.keys(input).find((k) => !schema.inputs.includes(k));
  if (extra) return { detail: `- input: Additional property ${extra} is not allowed\n`, field: 'input', type: 'additional_property_not_allowed', description: `Additional property ${extra} is not allowed` };
  if (schema.images) {
    const [name, max] = schema.images;
    const v = input[name];
    const n = Array.isArray(v) ? v.length : v ? 1 : 0;
    if (n > max) return { detail: `- input.${name}: Array must have at most ${max} items\n`, field: `input.${name}`, type: 'array_max_items', description: `Array must have at most ${max} items` };
  }
  return null;
}

/** The model name a route names, if this channel serves it. */
function servedModel(channel: Channel, name: string): [string, string] | undefined {
  const hit = Object.entries(channel.models).find(([, m]) => m === name || m.split(':')[0] === name);
  return hit as [string, string] | undefined;
}

function prediction(ctx: SimContext, channel: Channel, r: Render, origin: string) {
  const meta = (r.meta ?? {}) as { input?: unknown; cancelAfterMs?: number };
  const base = {
    id: r.id, model: r.model, version: 'sim', input: meta.input ?? {}, logs: '', error: null as string | null, output: null as unknown,
    created_at: new Date(r.createdAt).toISOString(),
    urls: { get: `${origin}/replicate/v1/predictions/${r.id}`, cancel: `${origin}/replicate/v1/predictions/${r.id}/cancel` },
  };
  // Cancel-After: past the deadline the prediction stops, `aborted` when it had not started.
  const elapsed = Date.now() - r.createdAt;
  if (meta.cancelAfterMs !== undefined && elapsed > meta.cancelAfterMs && (r.directives.hang || elapsed < r.renderMs))
    return { ...base, status: r.renderMs * 0.1 > meta.cancelAfterMs ? 'aborted' : 'canceled' };
  if (r.directives.violationInput)
    return { ...base, status: 'failed', error: 'The input or output was flagged as sensitive. Please try again with different inputs. (E005)' };
  const view = ctx.store.view(r, channel.reportsViolations);
  if (view.status === 'running') return { ...base, status: view.progress >= 10 ? 'processing' : 'starting' };
  if (view.status === 'cancelled') return { ...base, status: 'canceled' };
  const metrics = { predict_time: r.renderMs / 1000 };
  if (view.status === 'failed' && view.code === 'content_policy')
    return { ...base, status: 'failed', error: 'The input or output was flagged as sensitive. Please try again with different inputs. (E005)', metrics };
  if (view.status === 'failed') return { ...base, status: 'failed', error: 'Prediction failed: the model crashed (E1000)', metrics };
  if (view.outputs === 0) return { ...base, status: 'succeeded', output: null, metrics };
  const url = `${origin}${mediaUrlPath(r.directives.expired ? `expired-${r.id}` : r.id, 0)}`;
  return { ...base, status: 'succeeded', output: r.type === 'image' ? [url] : url, metrics, ...(r.directives.expired ? { data_removed: true } : {}) };
}

const PAGE = 100;

/**
 * `GET /v1/predictions`: this channel's predictions, newest first, as the documented example lists
 * them (with `source`; without `webhook`). `next` and `previous` are full URLs carrying a cursor.
 */
function listPredictions(ctx: SimContext, channel: Channel, res: ServerResponse, url: URL, origin: string) {
  const offset = Number(Buffer.from(url.searchParams.get('cursor') ?? '', 'base64url').toString() || 0);
  if (!Number.isInteger(offset) || offset < 0) return problem(res, 400, 'Invalid cursor.');
  // Newest first, renders created in the same millisecond too (find() answers oldest first; the sort is stable).
  const all = ctx.store.find(channel.id, () => true).reverse().sort((a, b) => b.createdAt - a.createdAt);
  const page = (at: number) => `${origin}/replicate/v1/predictions?cursor=${Buffer.from(String(at)).toString('base64url')}`;
  return send(res, 200, {
    next: offset + PAGE < all.length ? page(offset + PAGE) : null,
    previous: offset > 0 ? page(Math.max(0, offset - PAGE)) : null,
    results: all.slice(offset, offset + PAGE).map((r) => ({ ...prediction(ctx, channel, r, origin), source: 'api' })),
  });
}

const TERMINAL = new Set(['succeeded', 'failed', 'canceled', 'aborted']);

async function deliver(ctx: SimContext, channel: Channel, r: Render, hook: string, origin: string): Promise<void> {
  const body = JSON.stringify(prediction(ctx, channel, r, origin));
  for (let attempt = 0; attempt < 2; attempt++) {
    const id = `msg_${randomBytes(12).toString('hex')}`;
    const now = new Date();
    try {
      const status = await postHook(
        hook,
        {
          'Content-Type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': new Webhook(webhookSecret(ctx)).sign(id, now, body),
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

const waitSeconds = (req: IncomingMessage): number => {
  const m = /^\s*wait(?:=(\d+))?\s*$/i.exec(String(req.headers.prefer ?? ''));
  return m ? Math.min(Number(m[1] ?? 60), 60) : 0;
};
const cancelAfterMs = (req: IncomingMessage): number | undefined => {
  const m = /^\s*(\d+)\s*(ms|s|m|h)?\s*$/i.exec(String(req.headers['cancel-after'] ?? ''));
  if (!m) return undefined;
  return Number(m[1]) * ({ ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's').toLowerCase() as 'ms' | 's' | 'm' | 'h']);
};

registerProtocol({
  protocol: 'replicate',
  mount: 'replicate',
  async handle(ctx, { req, res, url, rest }) {
    await sleep(ctx.opts.latencyMs);
    const channel = ctx.channelByKey(requestKey(req, url));
    if (!channel || !/^Bearer /i.test(String(req.headers.authorization ?? ''))) return problem(res, 401, 'You did not pass a valid authentication token.');
    if (rest[0] !== 'v1') return problem(res, 404, 'Not found.');
    const path = rest.slice(1);
    const origin = ctx.origin(req);

    if (req.method === 'GET' && path.join('/') === 'webhooks/default/secret') return send(res, 200, { key: webhookSecret(ctx) });

    // The model lookup (the channel check's probe): GET /v1/models/{owner}/{name}[/versions/{id}].
    if (req.method === 'GET' && path[0] === 'models' && (path.length === 3 || (path.length === 5 && path[3] === 'versions'))) {
      const name = `${path[1]}/${path[2]}`;
      const value = path.length === 5 ? `${name}:${path[4]}` : name;
      const known = Object.values(channel.models).some((m) => m === value || (path.length === 3 && m.split(':')[0] === name));
      if (!known || !ctx.hasModel(channel, value)) return problem(res, 404, 'Not found.');
      return send(res, 200, path.length === 5 ? { id: path[4], openapi_schema: {} } : { owner: path[1], name: path[2], visibility: 'public', latest_version: { id: 'sim' } });
    }
    const create = req.method === 'POST' && ((path.length === 4 && path[0] === 'models' && path[3] === 'predictions') || (path.length === 1 && path[0] === 'predictions'));
    if (create) {
      const body = await readJson(req);
      if (!body) return problem(res, 400, 'Invalid JSON.');
      const name = path.length === 4 ? `${path[1]}/${path[2]}` : String(body.version ?? '');
      const served = path.length === 4 ? servedModel(channel, name) : Object.entries(channel.models).find(([, m]) => m.split(':')[1] === name);
      if (!served || !ctx.hasModel(channel, served[1])) return problem(res, 404, 'The requested model could not be found.');
      const input = (body.input ?? {}) as Record<string, unknown>;
      const invalid = replicateInputRefusal(served[1], input);
      if (invalid)
        return send(res, 422, { detail: invalid.detail, status: 422, title: 'Input validation failed', invalid_fields: [{ type: invalid.type, field: invalid.field, description: invalid.description }] });
      const directives = parseDirectives(input.prompt);
      const ref = promptRef(input.prompt);
      const refusal = ctx.store.countCall(ref, directives);
      if (refusal === 429) return problem(res, 429, 'Request was throttled. Your rate limit resets in ~1s.');
      if (refusal === 503) return problem(res, 503, 'Service Unavailable.');
      const isImage = served[0].startsWith('image-');
      const { render } = ctx.store.submit(channel.id, undefined, {
        ref, type: isImage ? 'image' : 'video', model: served[1].split(':')[0], ratio: input.aspect_ratio,
        resolution: isImage ? String(input.resolution ?? input.size ?? '1K').toLowerCase() : (input.resolution ?? '720p'),
        duration: input.duration ?? 8, renderMs: directives.delayMs ?? ctx.opts.renderMs, directives,
        meta: { input, cancelAfterMs: cancelAfterMs(req) },
      });
      if (typeof body.webhook === 'string') {
        const hook = body.webhook;
        ctx.store.whenFinished(render, (r) => void deliver(ctx, channel, r, hook, origin));
      }
      // Prefer: wait holds the answer until the prediction is done or the wait is over.
      const wait = waitSeconds(req);
      const until = Date.now() + wait * 1000;
      // Answered when the render ends, as Replicate does, not at the next 50 ms tick: the benchmark's
      // answers-at-once figure subtracts the render time and would count the tick as ours.
      const ends = render.directives.hang ? until : render.createdAt + render.renderMs;
      while (Date.now() < until && !TERMINAL.has(prediction(ctx, channel, render, origin).status))
        await sleep(Math.max(1, Math.min(50, until - Date.now(), ends - Date.now())));
      await sleep(directives.slowSubmitMs);
      return send(res, 201, prediction(ctx, channel, render, origin));
    }
    if (req.method === 'GET' && path.length === 1 && path[0] === 'predictions') return listPredictions(ctx, channel, res, url, origin);
    if (path[0] === 'predictions' && path[1]) {
      const render = ctx.store.get(channel.id, path[1]);
      if (!render || isLost(ctx, render)) return problem(res, 404, 'The requested resource could not be found.');
      const refusal = ctx.store.countCall(render.ref, render.directives);
      if (refusal === 429) return problem(res, 429, 'Request was throttled. Expected available in 1 second.');
      if (refusal === 503) return problem(res, 503, 'Service Unavailable.');
      if (req.method === 'GET' && path.length === 2) return send(res, 200, prediction(ctx, channel, render, origin));
      if (req.method === 'POST' && path.length === 3 && path[2] === 'cancel') {
        if (!TERMINAL.has(prediction(ctx, channel, render, origin).status)) ctx.store.cancel(channel.id, render.id);
        return send(res, 200, prediction(ctx, channel, render, origin));
      }
    }
    return problem(res, 404, 'Not found.');
  },
});
