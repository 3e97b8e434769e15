// The simulator speaking MiniMax video v2 (packages/providers/src/minimax), mounted at /minimax:
// a channel's baseUrl is `{sim}/minimax` and its key picks the channel.
//   POST   /v2/video_generation               {task_id, base_resp}
//   GET    /v2/query/video_generation/{id}    {task:{status, content.url, usage.output_seconds, error}, base_resp}
//   DELETE /v2/video_generation/{id}          {task_id, action:"delete", status:"deleted"}
// Directives fail in MiniMax's own signals: 422 `unprocessable_entity_error` "... (1026)"
// (#sim:violation-input), HTTP 200 with `base_resp.status_code` 1026 (#sim:violation-legacy), a
// failed task with error code "1027" (a string, #sim:violation), 429 "(1002)" with Retry-After (#sim:rate-limit),
// 503 (#sim:flaky), 404 (#sim:lost), status `expired` (#sim:expired), a task answer of a shape no
// client describes (#sim:unknown-shape).
// It refuses what MiniMax-H3 refuses (MiniMax-AI/cli src/video/v2.ts validateVideoV2Request,
// 2026-11-27), with a 400 `invalid_request_error` "... (2013)", so a wrong request fails our tests:
// no non-empty text part, a resolution other than 2K, a duration outside 4-15, a ratio outside its
// list (adaptive without an image), frames together with references, reference audio alone, and a
// `seed` (the v2 API has none).
// A retired or unmapped model answers 400 "invalid params, unknown model 'x' (2013)"; a create
// without content 400 2013 too (the channel check's probe).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Channel } from '@mediagen/providers';
import { parseDirectives } from '../directives';
import { registerProtocol, SimContext } from '../protocol-registry';
import type { Render } from '../render-store';
import { readJson, requestKey, send, sleep } from '../sim-http';
import { contentText, isLost, isQueued, refusal, taskRef } from './modelark';

const OK = { status_code: 0, status_msg: 'success' };
const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error', 401: 'authentication_error', 404: 'not_found_error', 405: 'invalid_request_error',
  422: 'unprocessable_entity_error', 429: 'rate_limit_error', 503: 'api_error',
};

/** The v2 error envelope; the legacy code sits at the end of the message. */
const mmError = (res: ServerResponse, status: number, message: string, headers?: Record<string, string>) =>
  send(res, status, { type: 'error', error: { type: ERROR_TYPES[status] ?? 'api_error', message, http_code: status }, request_id: `req_${Date.now().toString(36)}` }, headers);

function task(ctx: SimContext, req: IncomingMessage, render: Render): Record<string, unknown> {
  const seconds = Number(render.duration) || 5;
  const base = { id: render.id, model: render.model, task_type: 'generation', modality: 'video', resolution: render.resolution, duration: seconds, ratio: render.ratio };
  const view = ctx.store.view(render, true);
  if (view.status === 'cancelled') return { ...base, status: 'cancelled' };
  if (view.status === 'running') return { ...base, status: isQueued(render) ? 'queued' : 'running' };
  if (render.directives.expired) return { ...base, status: 'expired' };
  if (view.status === 'failed')
    // `error.code` is a string, as MiniMax's own CLI types it (src/types/api.ts VideoV2Task).
    return { ...base, status: 'failed', error: view.code === 'content_policy' ? { code: '1027', message: 'output new_sensitive' } : { code: '1000', message: 'unknown error' } };
  const usage = { total_seconds: seconds, input_seconds: 0, output_seconds: seconds };
  if (view.outputs === 0) return { ...base, status: 'succeeded', content: {}, usage };
  return { ...base, status: 'succeeded', content: { url: `${ctx.mediaUrl(req, render, 0)}?Expires=3600&Signature=sim` }, usage };
}

const RATIOS = new Set(['adaptive', '21:9', '16:9', '4:3', '1:1', '3:4', '9:16']);

/** Why MiniMax-H3 refuses this create body, or null. */
export function minimaxH3Refusal(body: Record<string, unknown>): string | null {
  const content = Array.isArray(body.content) ? (body.content as { type?: unknown; role?: unknown; text?: unknown }[]) : [];
  if (!content.some((p) => p?.type === 'text' && typeof p.text === 'string' && p.text.trim() !== '')) return 'MiniMax-H3 requires a non-empty text content item';
  if (body.resolution !== '2K') return 'MiniMax-H3 currently only supports 2K resolution';
  if (!Number.isInteger(body.duration) || (body.duration as number) < 4 || (body.duration as number) > 15) return 'MiniMax-H3 duration must be an integer from 4 to 15 seconds';
  if (body.ratio !== undefined && !RATIOS.has(String(body.ratio))) return `MiniMax-H3 ratio must be one of: ${[...RATIOS].join(', ')}`;
  if ('seed' in body) return 'unknown field seed';
  const frames = content.filter((p) => p?.type === 'image_url' && (p.role === undefined || p.role === 'first_frame' || p.role === 'last_frame'));
  const refs = content.filter((p) => typeof p?.role === 'string' && p.role.startsWith('reference_'));
  if (frames.length && refs.length) return 'MiniMax-H3 frame inputs and reference inputs cannot be used together';
  if (refs.some((p) => p.role === 'reference_audio') && !refs.some((p) => p.role === 'reference_image' || p.role === 'reference_video'))
    return 'MiniMax-H3 reference audio requires at least one reference image or reference video';
  const textOnly = content.every((p) => p?.type === 'text');
  if (textOnly && (body.ratio === undefined || body.ratio === 'adaptive')) return 'MiniMax-H3 text-to-video requires a concrete ratio; adaptive is not supported';
  return null;
}

async function create(ctx: SimContext, res: ServerResponse, channel: Channel, body: Record<string, unknown>) {
  const refused = minimaxH3Refusal(body);
  if (refused) return mmError(res, 400, `invalid params, ${refused} (2013)`);
  const prompt = contentText(body.content);
  const directives = parseDirectives(prompt);
  const ref = taskRef(prompt);
  const answer = refusal(ctx, { ref, directives });
  if (answer === 429) return mmError(res, 429, 'rate limit exceeded (1002)', { 'Retry-After': '1' });
  if (answer === 503) return mmError(res, 503, 'service unavailable, please retry (1000)');
  if (directives.violationInput) return mmError(res, 422, 'input new_sensitive (1026)');
  if (directives.violationLegacy) return send(res, 200, { task_id: '', base_resp: { status_code: 1026, status_msg: 'input new_sensitive' } });
  const { render } = ctx.store.submit(channel.id, undefined, {
    ref, type: 'video', ratio: body.ratio && body.ratio !== 'adaptive' ? body.ratio : '16:9', resolution: body.resolution, duration: body.duration ?? 5, model: String(body.model),
    renderMs: directives.delayMs ?? ctx.opts.renderMs, directives,
  });
  await sleep(directives.slowSubmitMs);
  return send(res, 200, { task_id: render.id, base_resp: OK });
}

registerProtocol({
  protocol: 'minimax',
  mount: 'minimax',
  async handle(ctx, { req, res, url, rest }) {
    await sleep(ctx.opts.latencyMs);
    const channel = ctx.channelByKey(requestKey(req, url));
    if (!channel) return mmError(res, 401, 'invalid api key (1004)');
    const at = rest.indexOf('v2');
    const path = at < 0 ? [] : rest.slice(at);

    if (req.method === 'POST' && path.length === 2 && path[1] === 'video_generation') {
      const body = await readJson(req);
      if (!body || typeof body.model !== 'string') return mmError(res, 400, 'invalid params, model is required (2013)');
      if (!ctx.hasModel(channel, body.model)) return mmError(res, 400, `invalid params, unknown model '${body.model}' (2013)`);
      // The channel check's probe: no content, nothing renders.
      if (!Array.isArray(body.content) || body.content.length === 0) return mmError(res, 400, 'invalid params, content is required (2013)');
      return create(ctx, res, channel, body);
    }
    const id = path[0] === 'v2' && path[1] === 'query' && path[2] === 'video_generation' && path.length === 4 ? path[3]
      : path[1] === 'video_generation' && path.length === 3 ? path[2] : undefined;
    if (!id) return mmError(res, 404, 'not found');
    const render = ctx.store.get(channel.id, id);
    if (!render || render.meta?.deleted) return mmError(res, 404, 'task not found');
    const answer = refusal(ctx, render);
    if (answer === 429) return mmError(res, 429, 'rate limit exceeded (1002)', { 'Retry-After': '1' });
    if (answer === 503) return mmError(res, 503, 'service unavailable, please retry (1000)');
    if (isLost(ctx, render)) return mmError(res, 404, 'task not found');

    if (req.method === 'GET' && path[1] === 'query') {
      // #sim:unknown-shape: a status no MiniMax client describes (content as a string, not {url}).
      if (render.directives.unknownShape) return send(res, 200, { task: { id: render.id, status: 'succeeded', content: 'https://example.invalid/video.mp4' }, base_resp: OK });
      return send(res, 200, { task: task(ctx, req, render), base_resp: OK });
    }
    if (req.method === 'DELETE' && path[1] === 'video_generation') {
      const t = task(ctx, req, render);
      if (t.status === 'queued' || t.status === 'running') ctx.store.cancel(channel.id, render.id);
      else render.meta = { ...render.meta, deleted: true };
      return send(res, 200, { task_id: render.id, action: 'delete', status: 'deleted' });
    }
    return mmError(res, 405, 'method not allowed');
  },
});
