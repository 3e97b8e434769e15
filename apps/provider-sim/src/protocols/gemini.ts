// The Gemini API as the simulator speaks it (mount `gemini`; channel baseUrl `{sim}/gemini/v1beta`):
//   POST /v1beta/models/{model}:predictLongRunning  -> {name: models/{model}/operations/{id}}
//   GET  /v1beta/models/{model}/operations/{id}     -> {name, done, error | response.generateVideoResponse}
//   GET  /v1beta/files/{id}:download?alt=media      -> the video; needs the key, like Veo's own downloads
//   POST /v1beta/models/{model}:generateContent     -> the image inline as base64, synchronously
// Directives in Gemini's own signals: 429 RESOURCE_EXHAUSTED with RetryInfo, 503 UNAVAILABLE,
// violation = RAI-filtered operation (Veo) / finishReason IMAGE_SAFETY (images), violation-input =
// 400 INVALID_ARGUMENT quoting a support code (Veo) / promptFeedback.blockReason (images), fail =
// operation error INTERNAL (Veo) / text-only STOP answer (images), no-file = done with zero samples /
// STOP without parts, lost = 404 on the task's first operation, expired = the video file is gone
// (Veo keeps files two days) so its download answers 404.
// Models Google has shut down answer as the real API does (ai.google.dev/gemini-api/docs/deprecations,
// 2026-11-27), even when the channel maps them: the image previews 404 NOT_FOUND "... is not found
// for API version v1beta, or is not supported for generateContent" (js-genai's recorded 404), the
// Veo 3.1 previews 404 NOT_FOUND "... is no longer available", so a config naming them fails our tests.
// A retired model (SimOptions.retiredModels) answers 404 NOT_FOUND the same way, and so does
// `GET /v1beta/models/{model}`, the model lookup (the channel check's probe), for both.
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Channel } from '@mediagen/providers';
import { parseDirectives } from '../directives';
import { mediaFile, sendMedia } from '../media-route';
import { registerProtocol, SimContext } from '../protocol-registry';
import type { Render } from '../render-store';
import { readJson, requestKey, send, sleep } from '../sim-http';

/** Shut down on 2026-06-25 (replacements gemini-3-pro-image, gemini-3.1-flash-image). */
const SHUT_DOWN_IMAGE_MODELS = new Set(['gemini-3-pro-image-preview', 'gemini-3.1-flash-image-preview']);
/** Shut down on 2026-10-22. */
const SHUT_DOWN_VEO_MODELS = new Set(['veo-3.1-generate-preview', 'veo-3.1-fast-generate-preview', 'veo-3.1-lite-generate-preview']);

/** #sim:lost: only the task's first render is forgotten. */
export const isLost = (ctx: SimContext, render: Render) => render.directives.lost && ctx.store.refSummary(render.ref).renders[0]?.id === render.id;

const googleError = (res: ServerResponse, code: number, status: string, message: string, details?: unknown[]) =>
  send(res, code, { error: { code, message, status, ...(details ? { details } : {}) } });

/** Gemini requests carry no client reference: a task's calls are grouped by its prompt. */
export const promptRef = (prompt: unknown) => `prompt:${createHash('sha256').update(String(prompt ?? '')).digest('hex').slice(0, 32)}`;

const refused = (res: ServerResponse, refusal: 429 | 503 | null): boolean => {
  if (refusal === 429) {
    googleError(res, 429, 'RESOURCE_EXHAUSTED', 'You exceeded your current quota, please check your plan.', [
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1s' },
    ]);
    return true;
  }
  if (refusal === 503) {
    googleError(res, 503, 'UNAVAILABLE', 'The model is overloaded. Please try again later.');
    return true;
  }
  return false;
};

function operation(ctx: SimContext, channel: Channel, render: Render, origin: string) {
  const name = `models/${render.model}/operations/${render.id}`;
  const view = ctx.store.view(render, channel.reportsViolations);
  if (view.status === 'running') return { name, done: false };
  if (view.status === 'cancelled') return { name, done: true, error: { code: 1, message: 'The operation was cancelled.', status: 'CANCELLED' } };
  if (view.status === 'failed' && view.code === 'content_policy')
    return {
      name, done: true,
      response: { generateVideoResponse: { raiMediaFilteredCount: 1, raiMediaFilteredReasons: ['This video was filtered for safety. You have not been charged. Support codes: 64151117'] } },
    };
  if (view.status === 'failed') return { name, done: true, error: { code: 13, message: 'Video generation failed due to an internal error.', status: 'INTERNAL' } };
  const samples = Array.from({ length: view.outputs }, () => ({ video: { uri: `${origin}/gemini/v1beta/files/${render.id}:download?alt=media` } }));
  return { name, done: true, response: { generateVideoResponse: { generatedSamples: samples } } };
}

async function generateContent(ctx: SimContext, channel: Channel, model: string, body: Record<string, unknown>, res: ServerResponse): Promise<void> {
  const contents = body.contents as Array<{ parts?: Array<{ text?: string }> }> | undefined;
  const prompt = (contents?.[0]?.parts ?? []).map((p) => p.text ?? '').join(' ');
  const directives = parseDirectives(prompt);
  const ref = promptRef(prompt);
  if (refused(res, ctx.store.countCall(ref, directives))) return;
  const imageConfig = ((body.generationConfig as Record<string, unknown> | undefined)?.imageConfig ?? {}) as Record<string, unknown>;
  const { render } = ctx.store.submit(channel.id, undefined, {
    ref, type: 'image', model, ratio: imageConfig.aspectRatio ?? '1:1', resolution: String(imageConfig.imageSize ?? '1K').toLowerCase(),
    renderMs: directives.delayMs ?? ctx.opts.renderMs, directives,
  });
  // Synchronous: the answer comes when the render is done. A hanging render holds the call until
  // the client gives up.
  if (directives.hang) return void (await new Promise((r) => res.once('close', r)));
  let view = ctx.store.view(render, channel.reportsViolations);
  // Timers may fire a millisecond early: wait until the store sees the render finished.
  while (view.status === 'running' && !res.destroyed) {
    await sleep(Math.max(2, render.createdAt + render.renderMs - Date.now() + 1));
    view = ctx.store.view(render, channel.reportsViolations);
  }
  if (res.destroyed) return;
  if (directives.violationInput) return send(res, 200, { promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 } });
  if (view.status === 'failed' && view.code === 'content_policy') return send(res, 200, { candidates: [{ content: { role: 'model', parts: [] }, finishReason: 'IMAGE_SAFETY' }] });
  if (view.status === 'failed' || view.status === 'cancelled')
    return send(res, 200, { candidates: [{ content: { role: 'model', parts: [{ text: "I can't create that image." }] }, finishReason: 'STOP' }] });
  if (view.status !== 'succeeded' || view.outputs === 0) return send(res, 200, { candidates: [{ content: { role: 'model' }, finishReason: 'STOP' }] });
  const { file } = mediaFile(render);
  return send(res, 200, {
    candidates: [{ content: { role: 'model', parts: [{ text: 'Here you go.' }, { inlineData: { mimeType: 'image/png', data: file.toString('base64') } }] }, finishReason: 'STOP' }],
    usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 1290, totalTokenCount: 1302 },
    modelVersion: model,
    responseId: render.id,
  });
}

registerProtocol({
  protocol: 'gemini',
  mount: 'gemini',
  async handle(ctx, { req, res, url, rest }) {
    await sleep(ctx.opts.latencyMs);
    const channel = ctx.channelByKey(requestKey(req, url));
    if (!channel) return googleError(res, 400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.');
    const [version, kind, ...tail] = rest;
    if (version !== 'v1beta') return googleError(res, 404, 'NOT_FOUND', 'No such route.');

    // GET /v1beta/models/{model}: the model lookup (the channel check's probe).
    if (req.method === 'GET' && kind === 'models' && tail.length === 1) {
      const model = tail[0];
      if (SHUT_DOWN_IMAGE_MODELS.has(model) || SHUT_DOWN_VEO_MODELS.has(model) || !ctx.hasModel(channel, model))
        return googleError(res, 404, 'NOT_FOUND', `models/${model} is not found for API version v1beta, or is not supported for getModel.`);
      return send(res, 200, { name: `models/${model}`, version: '001', displayName: model, supportedGenerationMethods: [/^veo/.test(model) ? 'predictLongRunning' : 'generateContent'] });
    }
    // POST /v1beta/models/{model}:{method}
    if (req.method === 'POST' && kind === 'models' && tail.length === 1) {
      const [model, method] = tail[0].split(':');
      if (SHUT_DOWN_IMAGE_MODELS.has(model))
        return googleError(res, 404, 'NOT_FOUND', `models/${model} is not found for API version v1beta, or is not supported for ${method}. Call ListModels to see the list of available models and their supported methods.`);
      if (SHUT_DOWN_VEO_MODELS.has(model))
        return googleError(res, 404, 'NOT_FOUND', `models/${model} is no longer available. Please migrate to a supported model (ai.google.dev/gemini-api/docs/deprecations).`);
      // A retired (SimOptions.retiredModels) or unmapped model.
      if (!ctx.hasModel(channel, model)) return googleError(res, 404, 'NOT_FOUND', `models/${model} is not found for API version v1beta, or is not supported for ${method}.`);
      const body = await readJson(req);
      if (!body) return googleError(res, 400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.');
      if (method === 'generateContent') return generateContent(ctx, channel, model, body, res);
      if (method !== 'predictLongRunning') return googleError(res, 404, 'NOT_FOUND', `Method ${method} not found.`);
      const instance = ((body.instances as unknown[] | undefined)?.[0] ?? {}) as Record<string, unknown>;
      const params = (body.parameters ?? {}) as Record<string, unknown>;
      if (instance.image && (instance.image as Record<string, unknown>).inlineData) return googleError(res, 400, 'INVALID_ARGUMENT', "`inlineData` isn't supported by this model.");
      const directives = parseDirectives(instance.prompt);
      const ref = promptRef(instance.prompt);
      if (refused(res, ctx.store.countCall(ref, directives))) return;
      if (directives.violationInput)
        return googleError(res, 400, 'INVALID_ARGUMENT', "The prompt couldn't be submitted: it may violate our policies. Support codes: 58061214");
      const { render } = ctx.store.submit(channel.id, undefined, {
        ref, type: 'video', model, ratio: params.aspectRatio ?? '16:9', resolution: params.resolution ?? '720p', duration: params.durationSeconds ?? 8,
        renderMs: directives.delayMs ?? ctx.opts.renderMs, directives,
      });
      await sleep(directives.slowSubmitMs);
      return send(res, 200, { name: `models/${model}/operations/${render.id}` });
    }
    // GET /v1beta/models/{model}/operations/{id}
    if (req.method === 'GET' && kind === 'models' && tail.length === 3 && tail[1] === 'operations') {
      const render = ctx.store.get(channel.id, tail[2]);
      if (!render || render.model !== tail[0] || isLost(ctx, render)) return googleError(res, 404, 'NOT_FOUND', 'Requested entity was not found.');
      if (refused(res, ctx.store.countCall(render.ref, render.directives))) return;
      return send(res, 200, operation(ctx, channel, render, ctx.origin(req)));
    }
    // GET /v1beta/files/{id}:download
    if (req.method === 'GET' && kind === 'files' && tail.length === 1 && tail[0].endsWith(':download')) {
      const render = ctx.store.get(channel.id, tail[0].slice(0, -':download'.length));
      const view = render && ctx.store.view(render, channel.reportsViolations);
      if (!render || view?.status !== 'succeeded' || view.outputs === 0 || render.directives.expired) return googleError(res, 404, 'NOT_FOUND', 'File not found.');
      return sendMedia(render, res);
    }
    return googleError(res, 404, 'NOT_FOUND', 'No such route.');
  },
});
