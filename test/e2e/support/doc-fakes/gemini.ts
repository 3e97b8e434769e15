// The Gemini API from the public docs (providers.md sections 2.1 and 3): Veo through
// `POST {base}/models/{model}:predictLongRunning` + `GET {base}/{operation name}`, Gemini images through
// `POST {base}/models/{model}:generateContent`, header `x-goog-api-key`, the google.rpc error envelope
// `{error:{code,message,status,details[]}}`.
// Variants picked: a running operation has no `done` field at all, a finished one carries the
// `@type` of its response, the video is `generatedSamples[].video.uri` on `/files/{id}:download?alt=media`
// that answers only with the key, a filtered video is `done` with `raiMediaFilteredCount` and no
// samples, images answer a text part before the `inlineData` part (with a thoughtSignature), a
// blocked prompt is HTTP 200 with `promptFeedback.blockReason` and no candidates, and a 429
// carries `RetryInfo.retryDelay` ("1s"). Fields the Gemini API refuses for Veo (`seed`,
// `generateAudio`, `inlineData` images) answer 400 INVALID_ARGUMENT.
import { randomBytes } from 'node:crypto';
import { Fake, FakeContext, Job, Reply, mp4Bytes, pngBytes, sizeFor } from './common';

const API = '/v1beta';

const STATUS: Record<number, string> = { 400: 'INVALID_ARGUMENT', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 429: 'RESOURCE_EXHAUSTED', 500: 'INTERNAL', 503: 'UNAVAILABLE' };

const rpcError = (code: number, message: string, details: unknown[] = []): Reply => ({
  status: code,
  json: { error: { code, message, status: STATUS[code], ...(details.length ? { details } : {}) } },
});

const exhausted = () =>
  rpcError(429, 'You exceeded your current quota, please check your plan and billing details.', [
    { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaMetric: 'generativelanguage.googleapis.com/generate_requests_per_model', quotaId: 'GenerateRequestsPerMinutePerProjectPerModel' }] },
    { '@type': 'type.googleapis.com/google.rpc.Help', links: [{ description: 'Learn more about Gemini API quotas', url: 'https://ai.google.dev/gemini-api/docs/rate-limits' }] },
    { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1s' },
  ]);

function guard(fake: Fake, prompt: string): Reply | undefined {
  if (prompt.includes('[fake:gemini-denied]')) return rpcError(403, 'Permission denied: Consumer has been suspended.');
  if (fake.firstTime('429', prompt)) return exhausted();
  if (fake.firstTime('500', prompt)) return rpcError(503, 'The model is overloaded. Please try again later.');
  if (prompt.includes('[fake:input-violation]'))
    return rpcError(400, "The prompt couldn't be submitted: it violates the usage guidelines. Support codes: 58061214");
  return undefined;
}

function operationView(fake: GeminiFake, job: Job, model: string): Record<string, unknown> {
  const name = `models/${model}/operations/${job.id}`;
  const phase = fake.phase(job);
  if (phase === 'queued' || phase === 'running') return { name };
  const type = 'type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse';
  if (job.prompt.includes('[fake:op-error]'))
    return { name, done: true, error: { code: 3, message: "Your prompt couldn't be submitted because it may violate our policies. Support codes: 29310472", status: 'INVALID_ARGUMENT' } };
  if (phase === 'violation') {
    return {
      name,
      done: true,
      response: { '@type': type, generateVideoResponse: { raiMediaFilteredCount: 1, raiMediaFilteredReasons: ["We encountered an issue with the audio for your prompt. You weren't charged for this request. Support codes: 64151117"] } },
    };
  }
  if (!job.extra.fileId) {
    const params = (job.body.parameters ?? {}) as Record<string, unknown>;
    const [w, h] = sizeFor(String(params.aspectRatio ?? '16:9'));
    const seconds = Number(params.durationSeconds ?? 8);
    job.extra.fileId = randomBytes(6).toString('hex');
    fake.publishKeyed(`${API}/files/${job.extra.fileId}:download`, 'video/mp4', mp4Bytes(seconds, w, h));
  }
  return {
    name,
    done: true,
    // `generatedSamples` is the wire name (js-genai, vercel-ai); new-api reads `generatedVideos`.
    response: { '@type': type, generateVideoResponse: { [job.prompt.includes('[fake:alt]') ? 'generatedVideos' : 'generatedSamples']: [{ video: { uri: `${fake.origin}${API}/files/${job.extra.fileId}:download?alt=media`, mimeType: 'video/mp4' } }] } },
  };
}

function generateContent(fake: GeminiFake, model: string, body: Record<string, unknown>): Reply {
  const contents = Array.isArray(body.contents) ? (body.contents as { parts?: { text?: string }[] }[]) : [];
  const prompt = contents.flatMap((c) => c.parts ?? []).map((p) => p.text ?? '').join(' ');
  const refused = guard(fake, prompt);
  if (refused) return refused;
  if (!prompt) return rpcError(400, '* GenerateContentRequest.contents: contents is not specified');
  for (const part of contents.flatMap((c) => c.parts ?? []) as Record<string, any>[]) {
    const inline = part.inlineData ?? part.inline_data;
    if (inline && (typeof inline.data !== 'string' || typeof (inline.mimeType ?? inline.mime_type) !== 'string')) return rpcError(400, '* GenerateContentRequest.contents[0].parts: inline data needs data and mimeType');
  }
  const config = (body.generationConfig ?? {}) as { imageConfig?: { aspectRatio?: string; imageSize?: string }; responseModalities?: string[] };
  if (model.startsWith('gemini-2.5') && config.imageConfig?.imageSize) return rpcError(400, 'imageSize is not supported for this model.');
  const usage = { promptTokenCount: 12, candidatesTokenCount: 1290, totalTokenCount: 1302, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 12 }] };
  if (prompt.includes('[fake:violation]')) return { status: 200, json: { promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: usage, modelVersion: model, responseId: randomBytes(8).toString('base64url') } };
  const [w, h] = sizeFor(config.imageConfig?.aspectRatio ?? '1:1');
  const meta = { usageMetadata: usage, modelVersion: model, responseId: randomBytes(8).toString('base64url') };
  if (prompt.includes('[fake:image-safety]'))
    return { status: 200, json: { candidates: [{ content: { role: 'model', parts: [] }, finishReason: 'IMAGE_SAFETY', index: 0 }], ...meta } };
  if (prompt.includes('[fake:text-only]'))
    return { status: 200, json: { candidates: [{ content: { role: 'model', parts: [{ text: "I can't create that image, but I can help with something else." }] }, finishReason: 'STOP', index: 0 }], ...meta } };
  return {
    status: 200,
    json: {
      candidates: [
        {
          content: {
            role: 'model',
            parts: [
              { text: "Here is the image you asked for: " },
              { inlineData: { mimeType: 'image/png', data: pngBytes(w, h).toString('base64') }, thoughtSignature: randomBytes(24).toString('base64') },
            ],
          },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      usageMetadata: usage,
      modelVersion: model,
      responseId: randomBytes(8).toString('base64url'),
    },
  };
}

export function geminiFake(apiKey: string, renderMs?: number): GeminiFake {
  const models = new Map<string, string>(); // operation id -> model
  const keyed = new Map<string, { type: string; bytes: Buffer }>();
  const fake = new Fake(
    'gemini',
    ({ url, req, body }: FakeContext): Reply | undefined => {
      if (!url.pathname.startsWith(API)) return undefined;
      const key = req.headers['x-goog-api-key'] ?? url.searchParams.get('key');
      if (url.pathname.startsWith('/gcs-download')) return undefined;
      if (!key) return rpcError(403, 'Method doesn\'t allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.');
      if (key !== apiKey) return rpcError(400, 'API key not valid. Please pass a valid API key.');
      const path = url.pathname.slice(API.length);
      // The download answers with a redirect to storage that needs no key (the REST example
      // downloads with `curl -L`); the storage URL is signed and serves the bytes.
      const file = keyed.get(url.pathname);
      if (file && req.method === 'GET') {
        const target = fake.publish(`/gcs-download${url.pathname.replace(':download', '')}`, file.type, file.bytes, { 'X-Goog-Signature': 'c2lnbmF0dXJl', 'X-Goog-Expires': '172800' });
        return { status: 302, headers: { location: target } };
      }
      const b = (body ?? {}) as Record<string, unknown>;
      const call = /^\/models\/([^/:]+):(predictLongRunning|generateContent)$/.exec(path);
      if (call && req.method === 'POST' && call[2] === 'generateContent') return generateContent(fake, call[1], b);
      if (call && req.method === 'POST') {
        const instance = ((b.instances ?? []) as Record<string, unknown>[])[0] ?? {};
        const params = (b.parameters ?? {}) as Record<string, unknown>;
        const prompt = typeof instance.prompt === 'string' ? instance.prompt : '';
        const refused = guard(fake, prompt);
        if (refused) return refused;
        if (!prompt) return rpcError(400, 'instances[0].prompt is required.');
        for (const field of ['seed', 'generateAudio', 'fps', 'storageUri'])
          if (field in params) return rpcError(400, `${field} parameter is not supported in Gemini API.`);
        for (const img of [instance.image, instance.lastFrame, ...((instance.referenceImages ?? []) as { image?: unknown }[]).map((r) => r.image)])
          if (img && typeof img === 'object' && 'inlineData' in img) return rpcError(400, "`inlineData` isn't supported by this model.");
        for (const img of [instance.image, instance.lastFrame, ...((instance.referenceImages ?? []) as { image?: unknown }[]).map((r) => r.image)]) {
          const i = img as { bytesBase64Encoded?: unknown; mimeType?: unknown } | undefined;
          if (i && (typeof i.bytesBase64Encoded !== 'string' || typeof i.mimeType !== 'string')) return rpcError(400, 'Invalid image: bytesBase64Encoded and mimeType are required.');
        }
        for (const r of (instance.referenceImages ?? []) as { referenceType?: unknown }[])
          if (!['asset', 'ASSET', 'style', 'STYLE'].includes(String(r.referenceType))) return rpcError(400, `Invalid referenceType: ${String(r.referenceType)}`);
        if (params.durationSeconds !== undefined && ![4, 6, 8].includes(Number(params.durationSeconds))) return rpcError(400, 'durationSeconds must be one of 4, 6, 8.');
        if (params.aspectRatio !== undefined && !['16:9', '9:16'].includes(String(params.aspectRatio))) return rpcError(400, 'aspectRatio must be 16:9 or 9:16.');
        const job = fake.newJob(prompt, b);
        models.set(job.id, call[1]);
        return { status: 200, json: { name: `models/${call[1]}/operations/${job.id}` } };
      }
      const op = /^\/models\/([^/]+)\/operations\/([^/]+)$/.exec(path);
      if (op && req.method === 'GET') {
        const job = fake.jobs.get(op[2]);
        if (!job || models.get(job.id) !== op[1]) return rpcError(404, 'Operation not found.');
        if (fake.firstTime('poll-429', job.prompt)) return exhausted();
        return { status: 200, json: operationView(fake, job, op[1]) };
      }
      return undefined;
    },
    renderMs,
  ) as GeminiFake;
  fake.publishKeyed = (path, type, bytes) => keyed.set(path, { type, bytes });
  return fake;
}

export type GeminiFake = Fake & { publishKeyed(path: string, type: string, bytes: Buffer): void };
