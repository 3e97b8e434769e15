// The simulator speaking BytePlus ModelArk (packages/providers/src/modelark), mounted at /modelark:
// a channel's baseUrl is `{sim}/modelark/api/v3` and its key picks the channel.
//   POST   .../contents/generations/tasks        Seedance: {id}
//   GET    .../contents/generations/tasks/{id}   the task: queued, running, succeeded, failed, cancelled, expired
//   DELETE .../contents/generations/tasks/{id}   cancels a queued task; deletes a finished one; refuses a running one
//   GET    .../contents/generations/tasks        the list: {items, total}, newest first, page_num/page_size,
//                                                filter.model, filter.status, filter.task_ids (repeated or comma-separated)
//   POST   .../images/generations                Seedream: the images, after the render time (synchronous)
// Directives fail in ModelArk's own signals: 400 `InputTextSensitiveContentDetected` (#sim:violation-input),
// a failed task `OutputVideoSensitiveContentDetected` / an image entry `OutputImageSensitiveContentDetected`
// (#sim:violation), 429 `RateLimitExceeded.EndpointRPMExceeded` with Retry-After (#sim:rate-limit),
// 503 (#sim:flaky), 404 `ResourceNotFound` (#sim:lost), status `expired` (#sim:expired).
// The real protocol carries no client reference, so calls are grouped into tasks by their prompt.
// Seedream sizes and reference counts are checked as the real service does (BytePlus ModelArk image
// generation, 2026-11-27): a named size the version lacks (1K on 4.5 / 5.0 lite, 4K on 5.0 lite), an
// explicit size outside its pixel range, or more reference images than it takes is a 400
// `InvalidParameter`, so a wrong request fails our own tests; so is Seedance 2.x reference audio
// without a reference image or video.
// A retired or unmapped model answers 404 `InvalidEndpointOrModel.NotFound`; a create without
// content (or prompt) 400 `MissingParameter`, which is what the channel check's probe reads.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Channel } from '@mediagen/providers';
import { parseDirectives } from '../directives';
import { pngFile, videoSize } from '../media-files';
import { registerProtocol, SimContext } from '../protocol-registry';
import type { Render } from '../render-store';
import { postHook, readJson, requestKey, send, sleep } from '../sim-http';
import { isLost, promptRef } from './gemini';

const arkError = (res: ServerResponse, status: number, code: string, message: string, headers?: Record<string, string>) =>
  send(res, status, { error: { code, message, param: '', type: status === 429 ? 'TooManyRequests' : status >= 500 ? 'InternalServerError' : 'BadRequest' } }, headers);

/** Calls of one task share a prompt (the protocols have no client reference field): one key for every protocol. */
export const taskRef = (prompt: string) => promptRef(prompt);

/** The text of a `content[]` list (ModelArk and MiniMax v2 share its shape). */
export function contentText(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content
    .filter((p): p is { type: 'text'; text: string } => !!p && (p as { type?: unknown }).type === 'text' && typeof (p as { text?: unknown }).text === 'string')
    .map((p) => p.text)
    .join('\n');
}

/** 429 / 503 for the first calls of #sim:rate-limit / #sim:flaky tasks, in the protocol's own words. */
export function refusal(ctx: SimContext, render: Pick<Render, 'ref' | 'directives'>): 429 | 503 | null {
  return ctx.store.countCall(render.ref, render.directives);
}

export { isLost };

/** A render's phase for protocols that distinguish queued from running: the first quarter is the queue. */
export const isQueued = (render: Render, now = Date.now()) => !render.directives.hang && now - render.createdAt < render.renderMs / 4;

function seedanceTask(ctx: SimContext, req: IncomingMessage, render: Render): Record<string, unknown> {
  const meta = render.meta ?? {};
  const { width, height } = videoSize(render.ratio, render.resolution);
  const seconds = Number(render.duration) || 5;
  const task: Record<string, unknown> = {
    id: render.id, model: render.model, status: 'running', error: null,
    created_at: Math.floor(render.createdAt / 1000), updated_at: Math.floor(Date.now() / 1000),
    seed: meta.seed ?? 1234, resolution: render.resolution ?? '720p', ratio: render.ratio ?? '16:9', duration: seconds,
    framespersecond: 24, service_tier: meta.serviceTier ?? 'default', execution_expires_after: meta.expiresAfter ?? 172800,
  };
  const view = ctx.store.view(render, true);
  if (view.status === 'cancelled') return { ...task, status: 'cancelled' };
  if (view.status === 'running') return { ...task, status: isQueued(render) ? 'queued' : 'running' };
  if (render.directives.expired) return { ...task, status: 'expired' };
  if (view.status === 'failed')
    return view.code === 'content_policy'
      ? { ...task, status: 'failed', error: { code: 'OutputVideoSensitiveContentDetected', message: 'The request failed because the output video may contain sensitive information.' } }
      : { ...task, status: 'failed', error: { code: 'InternalServiceError', message: 'The service encountered an unexpected internal error.' } };
  // Billing per BytePlus: tokens ~ width x height x fps x seconds / 1024.
  const usage = { completion_tokens: Math.round((width * height * 24 * seconds) / 1024), total_tokens: Math.round((width * height * 24 * seconds) / 1024) };
  if (view.outputs === 0) return { ...task, status: 'succeeded', content: {}, usage };
  // A signed-looking query, kept intact by a correct client.
  return { ...task, status: 'succeeded', content: { video_url: `${ctx.mediaUrl(req, render, 0)}?X-Tos-Expires=86400&X-Tos-Signature=sim%2Bsig` }, usage };
}

/** `GET .../contents/generations/tasks`: this channel's tasks as GET shows each, newest first. */
function listSeedance(ctx: SimContext, req: IncomingMessage, res: ServerResponse, channel: Channel, url: URL) {
  const q = url.searchParams;
  const pageNum = Number(q.get('page_num') ?? 1);
  const pageSize = Number(q.get('page_size') ?? 20);
  if (!Number.isInteger(pageNum) || pageNum < 1 || pageNum > 500 || !Number.isInteger(pageSize) || pageSize < 1 || pageSize > 500)
    return arkError(res, 400, 'InvalidParameter', 'page_num and page_size must be integers in [1, 500].');
  const model = q.get('filter.model');
  const status = q.get('filter.status');
  const ids = new Set(q.getAll('filter.task_ids').flatMap((v) => v.split(',')).filter(Boolean));
  const tasks = ctx.store
    .find(channel.id, (r) => r.type === 'video' && !r.meta?.deleted && (!model || r.model === model) && (!ids.size || ids.has(r.id)))
    // find() answers oldest first; reversed before the (stable) sort, renders created in the same
    // millisecond are listed newest first too.
    .reverse()
    .sort((a, b) => b.createdAt - a.createdAt)
    .map((r) => seedanceTask(ctx, req, r))
    .filter((t) => !status || t.status === status);
  return send(res, 200, { items: tasks.slice((pageNum - 1) * pageSize, pageNum * pageSize), total: tasks.length });
}

async function createSeedance(ctx: SimContext, req: IncomingMessage, res: ServerResponse, channel: Channel, body: Record<string, unknown>) {
  // Seedance 2.x refuses reference audio without a reference image or video (providers.md 1.2).
  const roles = Array.isArray(body.content) ? (body.content as { role?: unknown }[]).map((p) => p?.role) : [];
  if (/seedance-2-/i.test(String(body.model)) && roles.includes('reference_audio') && !roles.includes('reference_image') && !roles.includes('reference_video'))
    return arkError(res, 400, 'InvalidParameter', 'The parameter `content` specified in the request is not valid: reference audio requires a reference image or video.');
  const prompt = contentText(body.content);
  const directives = parseDirectives(prompt);
  const ref = taskRef(prompt);
  const answer = refusal(ctx, { ref, directives });
  if (answer === 429) return arkError(res, 429, 'RateLimitExceeded.EndpointRPMExceeded', 'The request has exceeded the rate limit of your endpoint (RPM).', { 'Retry-After': '1' });
  if (answer === 503) return arkError(res, 503, 'ServiceUnavailable', 'The service is temporarily unavailable.');
  if (directives.violationInput || directives.violationLegacy)
    return arkError(res, 400, 'InputTextSensitiveContentDetected', 'The request failed because the input text may contain sensitive information.');
  const { render } = ctx.store.submit(channel.id, undefined, {
    ref, type: 'video', ratio: body.ratio ?? '16:9', resolution: body.resolution ?? '720p', duration: body.duration ?? 5, model: String(body.model),
    renderMs: directives.delayMs ?? ctx.opts.renderMs, directives,
    meta: { seed: body.seed, serviceTier: body.service_tier, expiresAfter: body.execution_expires_after },
  });
  if (typeof body.callback_url === 'string') {
    // Unsigned, like ModelArk's: the body is the task as GET shows it, posted when it finishes.
    const url = body.callback_url;
    // The answer is kept (GET /stats/renders/<id> callbackStatus): a benchmark whose callbacks were
    // refused (a rate limit, a bad token) measures the fallback polls instead, and should say so.
    ctx.store.whenFinished(render, (r) =>
      void postHook(url, { 'Content-Type': 'application/json' }, JSON.stringify(seedanceTask(ctx, req, r))).then(
        (code) => void (r.callbackStatus = code),
        () => void (r.callbackStatus = 0),
      ),
    );
  }
  await sleep(directives.slowSubmitMs);
  return send(res, 200, { id: render.id });
}

/** Per Seedream version: named sizes, pixel range, reference images (independent of the adapter's table). */
const SEEDREAM_RULES: readonly [RegExp, { named: string[]; min: number; max: number; refs: number }][] = [
  [/seedream-5-0-pro/i, { named: ['1K', '2K'], min: 0, max: 4_194_304, refs: 10 }],
  [/seedream-5-0/i, { named: ['2K', '3K'], min: 3_686_400, max: 10_404_496, refs: 14 }],
  [/seedream-4-5/i, { named: ['2K', '4K'], min: 3_686_400, max: 16_777_216, refs: 14 }],
  [/seedream-4-0/i, { named: ['1K', '2K', '4K'], min: 921_600, max: 16_777_216, refs: 14 }],
];

/** Why this Seedream model refuses the body's size or images, or null. */
export function seedreamRefusal(body: Record<string, unknown>): string | null {
  const rules = SEEDREAM_RULES.find(([re]) => re.test(String(body.model)))?.[1];
  if (!rules) return null;
  const size = String(body.size ?? '2K');
  const exact = /^(\d+)x(\d+)$/.exec(size);
  if (!exact && !rules.named.includes(size.toUpperCase()))
    return `The parameter \`size\` specified in the request is not valid: ${body.model} supports ${rules.named.join(', ')} or WxH.`;
  if (exact) {
    const px = Number(exact[1]) * Number(exact[2]);
    if (px < rules.min || px > rules.max)
      return `The parameter \`size\` specified in the request is not valid: ${size} (${px} pixels) is outside [${rules.min}, ${rules.max}] for ${body.model}.`;
  }
  const images = Array.isArray(body.image) ? body.image.length : body.image ? 1 : 0;
  if (images > rules.refs) return `The parameter \`image\` specified in the request is not valid: ${body.model} takes at most ${rules.refs} reference images.`;
  return null;
}

async function seedream(ctx: SimContext, req: IncomingMessage, res: ServerResponse, channel: Channel, body: Record<string, unknown>) {
  const refused = seedreamRefusal(body);
  if (refused) return arkError(res, 400, 'InvalidParameter', refused);
  const prompt = typeof body.prompt === 'string' ? body.prompt : '';
  const directives = parseDirectives(prompt);
  const ref = taskRef(prompt);
  const answer = refusal(ctx, { ref, directives });
  if (answer === 429) return arkError(res, 429, 'RateLimitExceeded.EndpointRPMExceeded', 'The request has exceeded the rate limit of your endpoint (IPM).', { 'Retry-After': '1' });
  if (answer === 503) return arkError(res, 503, 'ServiceUnavailable', 'The service is temporarily unavailable.');
  if (directives.violationInput || directives.violationLegacy)
    return arkError(res, 400, 'InputTextSensitiveContentDetected', 'The request failed because the input text may contain sensitive information.');
  const size = /^\d+x\d+$/.test(String(body.size)) ? String(body.size) : ({ '1K': '1024x1024', '2K': '2048x2048', '3K': '3072x3072', '4K': '4096x4096' } as Record<string, string>)[String(body.size).toUpperCase()] ?? '2048x2048';
  const { render } = ctx.store.submit(channel.id, undefined, {
    ref, type: 'image', ratio: null, resolution: size, model: String(body.model), renderMs: directives.delayMs ?? ctx.opts.renderMs, directives,
  });
  // The render happens inside the call; a hanging one never answers (the client's deadline ends it).
  if (directives.hang) return new Promise<void>((resolve) => res.on('close', resolve));
  await sleep(render.renderMs);
  // Viewed at the render's end at the earliest: a timer may fire a millisecond before Date.now()
  // says renderMs passed, and a "running" view here answered a finished image with no data.
  const view = ctx.store.view(render, true, Math.max(Date.now(), render.createdAt + render.renderMs));
  const usage = (n: number) => ({ generated_images: n, output_tokens: n * 16384, total_tokens: n * 16384 });
  const answerWith = (data: unknown[], n: number) => send(res, 200, { model: render.model, created: Math.floor(Date.now() / 1000), data, usage: usage(n) });
  if (view.status === 'failed')
    return answerWith([view.code === 'content_policy'
      ? { error: { code: 'OutputImageSensitiveContentDetected', message: 'The request failed because the output image may contain sensitive information.' } }
      : { error: { code: 'InternalServiceError', message: 'The service encountered an unexpected internal error.' } }], 0);
  if (view.status !== 'succeeded' || view.outputs === 0) return answerWith([], 0);
  if (body.response_format === 'b64_json' && !directives.badFile) {
    const [w, h] = size.split('x').map(Number);
    return answerWith([{ b64_json: pngFile(w, h).toString('base64'), size }], 1);
  }
  return answerWith([{ url: `${ctx.mediaUrl(req, render, 0)}?X-Tos-Expires=86400&X-Tos-Signature=sim`, size }], 1);
}

registerProtocol({
  protocol: 'modelark',
  mount: 'modelark',
  async handle(ctx, { req, res, url, rest }) {
    await sleep(ctx.opts.latencyMs);
    const channel = ctx.channelByKey(requestKey(req, url));
    if (!channel) return arkError(res, 401, 'AuthenticationError', 'The API key in the request is missing or invalid.');
    // Any base path (`/api/v3`) before the resource names.
    const at = rest.findIndex((p) => p === 'contents' || p === 'images');
    const path = at < 0 ? [] : rest.slice(at);
    const isTasks = path[0] === 'contents' && path[1] === 'generations' && path[2] === 'tasks';

    if (req.method === 'POST' && (isTasks || (path[0] === 'images' && path[1] === 'generations')) && path.length === (isTasks ? 3 : 2)) {
      const body = await readJson(req);
      if (!body || typeof body.model !== 'string') return arkError(res, 400, 'MissingParameter', 'The request is missing the model parameter.');
      if (!ctx.hasModel(channel, body.model))
        return arkError(res, 404, 'InvalidEndpointOrModel.NotFound', `The model or endpoint ${body.model} does not exist or you do not have access to it.`);
      // The channel check's probe: a request without content (Seedance) or prompt (Seedream) is refused, nothing renders.
      if (isTasks && (!Array.isArray(body.content) || body.content.length === 0)) return arkError(res, 400, 'MissingParameter', 'The request is missing the content parameter.');
      if (!isTasks && (typeof body.prompt !== 'string' || !body.prompt)) return arkError(res, 400, 'MissingParameter', 'The request is missing the prompt parameter.');
      return isTasks ? createSeedance(ctx, req, res, channel, body) : seedream(ctx, req, res, channel, body);
    }
    if (req.method === 'GET' && isTasks && path.length === 3) return listSeedance(ctx, req, res, channel, url);
    if (!isTasks || path.length !== 4) return arkError(res, 404, 'InvalidEndpoint.NotFound', 'The requested endpoint does not exist.');
    const render = ctx.store.get(channel.id, path[3]);
    const notFound = () => arkError(res, 404, 'ResourceNotFound', `The specified task ${path[3]} is not found.`);
    if (!render || render.type !== 'video' || render.meta?.deleted) return notFound();
    const answer = refusal(ctx, render);
    if (answer === 429) return arkError(res, 429, 'RateLimitExceeded.EndpointRPMExceeded', 'The request has exceeded the rate limit of your endpoint (RPM).', { 'Retry-After': '1' });
    if (answer === 503) return arkError(res, 503, 'ServiceUnavailable', 'The service is temporarily unavailable.');
    if (isLost(ctx, render)) return notFound();
    const task = seedanceTask(ctx, req, render);

    if (req.method === 'GET') return send(res, 200, task);
    if (req.method === 'DELETE') {
      if (task.status === 'queued') {
        ctx.store.cancel(channel.id, render.id);
        return send(res, 200, {});
      }
      if (task.status === 'running' || task.status === 'cancelled')
        return arkError(res, 400, 'InvalidAction.TaskStatusNotAllowed', `A task in status ${String(task.status)} cannot be cancelled or deleted.`);
      render.meta = { ...render.meta, deleted: true };
      return send(res, 200, {});
    }
    return arkError(res, 405, 'MethodNotAllowed', 'Method not allowed.');
  },
});
